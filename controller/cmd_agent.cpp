// `workbench agent`: runs due probes unattended [000 §3.3.2]. With --once it runs what is due and
// exits (for cron); otherwise it looks again every [probing] poll_s until interrupted.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "core/cli_numbers.hpp"
#include "experiment/probe_service.hpp"

namespace wb {

namespace {

struct AgentOptions {
  bool once = false;
  int max = -1;
  bool verbose = false;
};

int run_agent(const CommonOptions& common, const AgentOptions& o) {
  Config config = Config::load(common.config);
  ProbeRunRequest request;
  request.agent = true;
  request.once = o.once;
  request.max = o.max;
  request.verbose = o.verbose;
  ProbeRunResult r = run_probes(config, common.store_or(config.store_path()), request, std::cerr);
  if (common.json) {
    std::cout << nlohmann::json{{"ran", r.ran}, {"open_mismatches", r.open_mismatches}}.dump() << "\n";
  } else {
    std::cout << fmt::format("{} probe(s) run; {} mismatch(es) open\n", r.ran, r.open_mismatches);
  }
  return 0;
}

}  // namespace

Command agent_command() {
  return Command{
      "agent",
      "Run the probes scheduled after mismatches as they fall due: each one a peak search, stored "
      "and fed into the Z-CART model; a mismatch closes once the refined model predicts it. "
      "Several agents may share a store: each probe runs once.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<AgentOptions>();
        add_common_options(app, common);
        app.add_flag("--once", o->once, "run what is due now and exit (for cron)");
        app.add_option("--max", o->max, "stop after N probes")->transform(cli::whole_number(1, 1000000000));
        app.add_flag("--verbose,-v", o->verbose, "log every stored trial to stderr");
        return [&common, o] { return run_agent(common, *o); };
      }};
}

}  // namespace wb
