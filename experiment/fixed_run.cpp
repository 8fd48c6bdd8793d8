#include "experiment/fixed_run.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "core/error.hpp"
#include "core/search_result.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/leases.hpp"
#include "experiment/testbed.hpp"
#include "policies/search.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

void validate_fixed_run(const FixedRunRequest& r) {
  if (!(r.rate > 0) || !std::isfinite(r.rate))
    throw InputError(fmt::format("--rate {:g}: must be a positive rate in requests/s", r.rate));
  if (r.runlength_s < 0 || !std::isfinite(r.runlength_s))
    throw InputError(fmt::format("--runlength {:g}: must be a positive number of seconds", r.runlength_s));
  if (r.trials < 2 || r.trials > kMaxFixedRunTrials) {
    throw InputError(fmt::format("--trials {}: must be between 2 (a confidence interval needs two) and {}",
                                 r.trials, kMaxFixedRunTrials));
  }
}

// Runs and stores the trials; on an error the run is stored as failed with the trials before it.
std::vector<TrialResult> run_trials(store::Store& store, std::int64_t run_id, TrialRunner& testbed,
                                    const FixedRunRequest& r, const Sample& sample, double runlength,
                                    std::ostream& log) {
  std::vector<TrialResult> trials;
  InterruptibleRunner runner(testbed);
  try {
    for (int i = 0; i < r.trials; ++i) {
      TrialResult t = runner.run(sample, r.rate, runlength, static_cast<std::uint64_t>(i));
      store.add_trial(run_id, 0, t);
      if (r.verbose)
        log << fmt::format("trial {} stored: {:.1f}/s mean {:.3f} ms\n", i + 1, t.achieved_rate, t.mean_ms);
      trials.push_back(std::move(t));
    }
  } catch (const Error& e) {
    SearchResult failed;
    failed.status = SearchStatus::kFailed;
    failed.message = dynamic_cast<const Interrupted*>(&e) != nullptr ? "interrupted" : e.what();
    store.finish_search(run_id, failed);
    throw;
  }
  return trials;
}

}  // namespace

FixedRunResult run_fixed_rate(const Config& config, const std::string& store_path, const FixedRunRequest& r,
                              std::ostream& log) {
  // Everything is validated before the store is opened: bad input changes nothing.
  FixedRunResult result;
  result.sample = config.sample(r.set);
  validate_fixed_run(r);
  result.runlength_s = r.runlength_s > 0 ? r.runlength_s : config.peak().runlength_s;
  std::optional<TestbedConfig> real = validate_testbed(config);
  const ProbeConfig probing = probe_config(config);
  const Target target = config.peak().target;
  const std::uint64_t seed = r.seed ? *r.seed : default_seed(config);

  store::Store store(store_path);
  Leases leases(store_path, config.lease_timeout_s());
  leases.sweep(store, log);
  std::unique_ptr<TrialRunner> testbed = make_trial_runner(config, real, seed, r.verbose, store.path());
  store::SearchRecord rec;
  rec.testbed = config.name();
  rec.sample = result.sample;
  rec.confidence = target.confidence;
  rec.accuracy = target.accuracy;
  rec.policy = "fixed";
  rec.seed = static_cast<std::int64_t>(seed);
  rec.options_json =
      nlohmann::json{{"rate", r.rate}, {"runlength_s", result.runlength_s}, {"trials", r.trials}}.dump();
  result.run_id = store.begin_owned_search(rec, leases.owner(), lease_clock());
  result.trials = run_trials(store, result.run_id, *testbed, r, result.sample, result.runlength_s, log);

  std::vector<double> means;
  for (const auto& t : result.trials) {
    means.push_back(t.mean_ms);
    result.saturated.push_back(trial_saturated(t, config.peak()));
    result.any_saturated = result.any_saturated || result.saturated.back();
    result.cost_s += t.cost_s;
  }
  result.response = response_interval(means, target.confidence);
  store.finish_fixed_run(result.run_id, result.response);
  result.check = check_fixed_run(store, config, probing, result.sample, result.run_id, r.rate, result.trials,
                                 result.response, log);
  result.tolerance = probing.tolerance;
  return result;
}

}  // namespace wb
