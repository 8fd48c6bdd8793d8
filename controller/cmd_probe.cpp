// `workbench probe list|run|cancel`: the probes scheduled after mismatches [000 §3.3.2].
#include <fmt/format.h>

#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "experiment/probe_check.hpp"
#include "experiment/probe_service.hpp"

namespace wb {

namespace {

struct ProbeOptions {
  bool all = false;
  bool due = false;
  std::vector<std::int64_t> ids;
  bool verbose = false;
};

std::string utc_text(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json probe_json(const Config& config, const store::Store::ProbeRow& p) {
  return {{"probe_id", p.id},
          {"mismatch_id", p.mismatch_id},
          {"sample", sample_json(config, p.sample)},
          {"status", to_string(p.status)},
          {"not_before", utc_text(p.not_before)},
          {"priority", p.priority},
          {"attribute", p.attribute},
          {"search_id", p.search_id ? nlohmann::json(*p.search_id) : nlohmann::json()}};
}

int run_list(const CommonOptions& common, const ProbeOptions& o) {
  Config config = Config::load(common.config);
  ProbeListing l = list_probes(config, common.store_or(config.store_path()), o.all);
  if (common.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : l.probes) {
      nlohmann::json j = probe_json(config, p);
      auto m = l.mismatches.find(p.mismatch_id);
      j["center"] = m != l.mismatches.end() && m->second.center ? nlohmann::json(*m->second.center) : nullptr;
      out.push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (l.probes.empty()) {
    std::cout << (o.all ? "no probes\n" : "no planned or running probes (--all shows every probe)\n");
    return 0;
  }
  std::cout << fmt::format("{:>5}  {:>8}  {:<10}  {:>8}  {:<20}  {:<10}  {}\n", "probe", "mismatch", "status",
                           "priority", "not before (UTC)", "varies", "sample");
  for (const auto& p : l.probes) {
    std::cout << fmt::format("{:>5}  {:>8}  {:<10}  {:>8g}  {:<20}  {:<10}  {}{}\n", p.id, p.mismatch_id,
                             to_string(p.status), p.priority, utc_text(p.not_before), p.attribute,
                             p.sample.key(), p.search_id ? fmt::format("  (search {})", *p.search_id) : "");
  }
  for (const auto& [id, m] : l.mismatches) {
    std::string center = mismatch_center_text(m);
    std::cout << fmt::format("mismatch {} at {} ({}): {}{}\n", id, m.sample.key(), to_string(m.status),
                             mismatch_figures_text(m), center.empty() ? "" : "; center " + center);
  }
  return 0;
}

int run_run(const CommonOptions& common, const ProbeOptions& o) {
  Config config = Config::load(common.config);
  ProbeRunRequest request;
  request.due = o.due;
  request.ids = o.ids;
  request.verbose = o.verbose;
  ProbeRunResult r = run_probes(config, common.store_or(config.store_path()), request, std::cerr);
  for (const auto& [id, status] : r.not_run)
    std::cerr << fmt::format("probe {}: {}, not run\n", id, to_string(status));
  if (common.json) {
    std::cout << nlohmann::json{{"ran", r.ran}}.dump() << "\n";
  } else {
    std::cout << fmt::format("{} probe(s) run\n", r.ran);
  }
  return to_int(r.not_run.empty() ? ExitStatus::kOk : ExitStatus::kNegative);
}

int run_cancel(const CommonOptions& common, const ProbeOptions& o) {
  Config config = Config::load(common.config);
  ProbeCancelResult r = cancel_probes(config, common.store_or(config.store_path()), o.ids);
  if (common.json) {
    nlohmann::json refused = nlohmann::json::array();
    for (const auto& n : r.refused)
      refused.push_back({{"probe_id", n.id}, {"status", to_string(n.status)}, {"reason", n.reason}});
    std::cout << nlohmann::json{{"cancelled", r.cancelled}, {"not_cancelled", refused}}.dump() << "\n";
  } else {
    for (std::int64_t id : r.cancelled) std::cout << fmt::format("probe {} cancelled\n", id);
    for (const auto& n : r.refused) std::cout << fmt::format("probe {} not cancelled: {}\n", n.id, n.reason);
  }
  return to_int(r.refused.empty() ? ExitStatus::kOk : ExitStatus::kNegative);
}

}  // namespace

Command probe_command() {
  return Command{
      "probe",
      "The active probes scheduled after mismatches between measurement and expectation: list them, run "
      "them now, or cancel them. `workbench agent` runs due probes unattended.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<ProbeOptions>();
        auto action = std::make_shared<std::function<int()>>();
        app.require_subcommand(1);
        CLI::App* list = app.add_subcommand("list", "planned and running probes (--all: every probe)");
        add_common_options(*list, common);
        list->add_flag("--all", o->all, "include done and cancelled probes");
        list->callback([&common, o, action] { *action = [&common, o] { return run_list(common, *o); }; });
        CLI::App* run = app.add_subcommand("run", "run probes now: the due ones (--due) or the given ids");
        add_common_options(*run, common);
        run->add_flag("--due", o->due, "every probe whose not-before time has passed");
        run->add_option("ids", o->ids, "probe ids")->transform(cli::whole_number(1, INT64_MAX));
        run->add_flag("--verbose,-v", o->verbose, "log every stored trial to stderr");
        run->callback([&common, o, action] { *action = [&common, o] { return run_run(common, *o); }; });
        CLI::App* cancel = app.add_subcommand(
            "cancel",
            "cancel probes that have not finished; a running one is stopped by the agent that runs it (this "
            "waits up to 30 s for it), or at once when that agent is dead");
        add_common_options(*cancel, common);
        cancel->add_option("ids", o->ids, "probe ids")
            ->required()
            ->transform(cli::whole_number(1, INT64_MAX));
        cancel->callback([&common, o, action] { *action = [&common, o] { return run_cancel(common, *o); }; });
        return [action] { return (*action)(); };
      }};
}

}  // namespace wb
