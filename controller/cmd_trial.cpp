// `workbench trial`: N trials of one sample at one fixed rate, stored as a run, their mean response
// time with a log-normal CI, and a check against the expectation's R(λ) [000 §3.2].
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "core/exit_status.hpp"
#include "core/trial_limits.hpp"
#include "experiment/fixed_run.hpp"

namespace wb {

namespace {

struct TrialOptions {
  FixedRunRequest request;
  std::uint64_t seed = 0;
  bool seed_given = false;
};

nlohmann::json trial_json(const TrialResult& t, bool sat) {
  nlohmann::json j{{"offered_rate", t.offered_rate},
                   {"achieved_rate", t.achieved_rate},
                   {"runlength_s", t.runlength_s},
                   {"sent", t.sent},
                   {"completed", t.completed},
                   {"errors", t.errors},
                   {"mean_ms", t.mean_ms},
                   {"p50_ms", t.p50_ms},
                   {"p90_ms", t.p90_ms},
                   {"p99_ms", t.p99_ms},
                   {"max_ms", t.max_ms},
                   {"saturated", sat},
                   {"cost_s", t.cost_s}};
  j["stage_ms"] = t.stage_ms.empty() ? nlohmann::json() : nlohmann::json(t.stage_ms);
  return j;
}

// DESIGN.md "Command contracts": trial --json.
nlohmann::json fixed_run_json(const Config& config, const FixedRunRequest& r, const FixedRunResult& f) {
  nlohmann::json tj = nlohmann::json::array();
  for (std::size_t i = 0; i < f.trials.size(); ++i) tj.push_back(trial_json(f.trials[i], f.saturated[i]));
  const FixedRunCheck& check = f.check;
  nlohmann::json mismatch;
  if (check.mismatch_id) {
    mismatch = {
        {"mismatch_id", *check.mismatch_id},
        {"expected_ms", *check.expected_ms},
        {"measured_ms", f.response.mean},
        {"ratio", f.response.mean / *check.expected_ms},
        {"center", check.centers.worst ? nlohmann::json(check.centers.worst->center) : nlohmann::json()},
        {"probe_ids", check.probe_ids}};
  }
  return {{"run_id", f.run_id},
          {"sample", sample_json(config, f.sample)},
          {"rate", r.rate},
          {"runlength_s", f.runlength_s},
          {"trials", tj},
          {"response",
           {{"mean_ms", f.response.mean},
            {"ci_low_ms", f.response.low},
            {"ci_high_ms", f.response.high},
            {"confidence", config.peak().target.confidence}}},
          {"saturated", f.any_saturated},
          {"expectation",
           {{"response_ms", check.expected_ms ? nlohmann::json(*check.expected_ms) : nlohmann::json()},
            {"bottleneck", check.bottleneck}}},
          {"tolerance", f.tolerance},
          {"mismatch", mismatch},
          {"centers", deviations_json(check.centers.centers)},
          {"cost_s", f.cost_s}};
}

void print_expectation_check(const Config& config, const FixedRunRequest& r, const FixedRunResult& f) {
  const FixedRunCheck& check = f.check;
  if (!check.expected_ms) {
    fmt::print("expectation: none ({})\n", config.model() ? "the model saturates at this rate or cannot "
                                                            "be solved for this sample"
                                                          : "the config has no [model]");
  } else if (check.mismatch_id) {
    fmt::print(
        "expectation R({:g}/s) = {:.3f} ms (bottleneck {}): MISMATCH {} — outside the CI and off by "
        "{:+.0f}% (tolerance {:.0f}%); {} probe(s) planned\n",
        r.rate, *check.expected_ms, check.bottleneck, *check.mismatch_id,
        (f.response.mean / *check.expected_ms - 1) * 100, f.tolerance * 100, check.probe_ids.size());
  } else {
    fmt::print(
        "expectation R({:g}/s) = {:.3f} ms (bottleneck {}): within tolerance ({:.0f}%, or inside the "
        "CI)\n",
        r.rate, *check.expected_ms, check.bottleneck, f.tolerance * 100);
  }
  for (const auto& d : check.centers.centers) {
    fmt::print("  center {}{}\n", center_deviation_text(d),
               check.centers.worst && check.centers.worst->center == d.center ? "  <- deviates most" : "");
  }
}

void print_fixed_run(const Config& config, const FixedRunRequest& r, const FixedRunResult& f) {
  fmt::print("fixed-rate run {} of {} at {:g}/s: {} trials of {:g} s\n", f.run_id, f.sample.key(), r.rate,
             f.trials.size(), f.runlength_s);
  fmt::print("  {:>5} {:>11} {:>10} {:>10} {:>8}\n", "trial", "achieved/s", "mean_ms", "p99_ms", "errors");
  for (std::size_t i = 0; i < f.trials.size(); ++i) {
    const TrialResult& t = f.trials[i];
    fmt::print("  {:>5} {:>11.1f} {:>10.3f} {:>10.3f} {:>8}{}\n", i + 1, t.achieved_rate, t.mean_ms, t.p99_ms,
               t.errors, f.saturated[i] ? "  saturated" : "");
  }
  fmt::print("mean response {:.3f} ms, {:g}% CI [{:.3f}, {:.3f}] (log-normal, {} trials)\n", f.response.mean,
             config.peak().target.confidence * 100, f.response.low, f.response.high, f.trials.size());
  if (f.any_saturated) fmt::print("some trials saturated: their mean is not a steady-state response time\n");
  print_expectation_check(config, r, f);
}

int run_trial(const CommonOptions& common, TrialOptions& o) {
  if (o.seed_given) o.request.seed = o.seed;
  Config config = Config::load(common.config);
  FixedRunResult f = run_fixed_rate(config, common.store_or(config.store_path()), o.request, std::cerr);
  if (common.json)
    std::cout << fixed_run_json(config, o.request, f).dump(2) << "\n";
  else
    print_fixed_run(config, o.request, f);
  return to_int(f.check.mismatch_id ? ExitStatus::kNegative : ExitStatus::kOk);
}

}  // namespace

Command trial_command() {
  return Command{
      "trial",
      "Run N trials of one sample at one fixed offered rate, store them, print the mean response time with "
      "its CI (log-normal, never below zero; at the [peak] target's confidence), and check it against the "
      "expectation model's "
      "R(rate): a mismatch when R_expected is outside the CI and off by more than [probing] tolerance "
      "(15%), recorded with the attributes ranked by information gain, the service center whose measured "
      "stage time deviates most (refserver), and planned probes. Exit 0 when it agrees or there is no "
      "expectation, 1 on a mismatch, 2 on bad input.\n\nThe run is stored like a search (policy and status "
      "\"fixed\", "
      "listed by `workbench report`) with every trial; on refserver each trial also keeps refserver's "
      "per-stage times (thread_queue, cpu, disk_queue, disk, ...), which name the deviating center."
      "\n\nA trial is marked saturated when the SUT did not keep up: fewer answers inside the measurement "
      "window than [peak] min_throughput_ratio (0.99) of the λr offered, and fewer by more than 5√(λr) (the "
      "noise of Poisson arrivals); or errors over max_error_ratio (1%) of those sent. Its mean is then not a "
      "steady-state response time; the peak search takes such a load as above the region."
      "\n\nExample:\n  workbench trial --config "
      "configs/sim.toml --set disks=2,threads=16 --rate 40 --runlength 20 --trials 3",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<TrialOptions>();
        add_common_options(app, common);
        app.add_option("--set,-s", o->request.set,
                       "factor levels of the sample, e.g. disks=2,threads=16 (others: their default)");
        app.add_option("--rate,-r", o->request.rate, "offered rate λ of every trial, requests/s (open loop)")
            ->required()
            ->check(cli::finite_number(0, kMaxRate, true));
        app.add_option("--runlength", o->request.runlength_s,
                       "seconds of measurement per trial, warm-up excluded (default: [peak] runlength_s)")
            ->check(cli::finite_number(0, kMaxSeconds, true));
        app.add_option("--trials,-n", o->request.trials, "trials to run, at least 2 for a CI (default 3)")
            ->transform(cli::whole_number(2, kMaxFixedRunTrials));
        app.add_option("--seed", o->seed, "random seed of the simulated testbed (default: [sim] seed)")
            ->transform(cli::seed_number())
            ->each([o](const std::string&) { o->seed_given = true; });
        app.add_flag("--verbose,-v", o->request.verbose, "log every stored trial (and SUT starts) to stderr");
        return [&common, o] { return run_trial(common, *o); };
      }};
}

}  // namespace wb
