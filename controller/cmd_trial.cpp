// `workbench trial`: N trials of one sample at one fixed rate, stored as a run, their mean response
// time with a Student-t CI, and a check against the expectation's R(λ) [000 §3.2].
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "core/search_result.hpp"
#include "core/stats.hpp"
#include "core/trial_limits.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/leases.hpp"
#include "experiment/probe_check.hpp"
#include "experiment/testbed.hpp"
#include "models/probe_plan.hpp"
#include "policies/search.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

// A run of more trials than this is a typo, not a measurement plan.
constexpr int kMaxTrials = 1000;

struct TrialOptions {
  std::string set;
  double rate = 0;
  double runlength_s = 0;  // 0: [peak] runlength_s
  int trials = 3;
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool verbose = false;
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

nlohmann::json centers_json(const CenterCheck& c) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : c.centers) {
    out.push_back({{"center", d.center},
                   {"stages", d.stages},
                   {"predicted_ms", d.predicted_ms},
                   {"measured_ms", d.measured_ms},
                   {"deviation", std::isfinite(d.deviation) ? nlohmann::json(d.deviation) : nlohmann::json()},
                   {"share", d.share}});
  }
  return out;
}

int run_trial(const CommonOptions& common, const TrialOptions& o) {
  // Everything is validated before the store is opened: bad input changes nothing.
  Config config = Config::load(common.config);
  Sample sample = config.sample(o.set);
  if (!(o.rate > 0) || !std::isfinite(o.rate))
    throw InputError(fmt::format("--rate {:g}: must be a positive rate in requests/s", o.rate));
  const double runlength = o.runlength_s > 0 ? o.runlength_s : config.peak().runlength_s;
  if (o.runlength_s < 0 || !std::isfinite(o.runlength_s))
    throw InputError(fmt::format("--runlength {:g}: must be a positive number of seconds", o.runlength_s));
  if (o.trials < 2 || o.trials > kMaxTrials) {
    throw InputError(fmt::format("--trials {}: must be between 2 (a confidence interval needs two) and {}",
                                 o.trials, kMaxTrials));
  }
  std::optional<TestbedConfig> real = validate_testbed(config);
  ProbeConfig probing = probe_config(config);
  const Target target = config.peak().target;
  const std::uint64_t seed = o.seed_given ? o.seed : default_seed(config);

  const std::string store_path = common.store_or(config.store_path());
  store::Store store(store_path);
  Leases leases(store_path, config.lease_timeout_s());
  leases.sweep(store, std::cerr);
  std::unique_ptr<TrialRunner> testbed = make_trial_runner(config, real, seed, o.verbose, store.path());
  store::SearchRecord rec;
  rec.testbed = config.name();
  rec.sample = sample;
  rec.confidence = target.confidence;
  rec.accuracy = target.accuracy;
  rec.policy = "fixed";
  rec.seed = static_cast<std::int64_t>(seed);
  rec.options_json =
      nlohmann::json{{"rate", o.rate}, {"runlength_s", runlength}, {"trials", o.trials}}.dump();
  const std::int64_t run_id = store.begin_owned_search(rec, leases.owner(), lease_clock());

  std::vector<TrialResult> trials;
  InterruptibleRunner runner(*testbed);
  try {
    for (int i = 0; i < o.trials; ++i) {
      TrialResult t = runner.run(sample, o.rate, runlength, static_cast<std::uint64_t>(i));
      store.add_trial(run_id, 0, t);
      if (o.verbose) {
        std::cerr << fmt::format("trial {} stored: {:.1f}/s mean {:.3f} ms\n", i + 1, t.achieved_rate,
                                 t.mean_ms);
      }
      trials.push_back(std::move(t));
    }
  } catch (const Error& e) {
    // The trials that ran stay stored; the run says why it ended.
    SearchResult failed;
    failed.status = SearchStatus::kFailed;
    failed.message = dynamic_cast<const Interrupted*>(&e) != nullptr ? "interrupted" : e.what();
    store.finish_search(run_id, failed);
    throw;
  }

  std::vector<double> means;
  bool any_saturated = false;
  for (const auto& t : trials) {
    means.push_back(t.mean_ms);
    any_saturated = any_saturated || trial_saturated(t, config.peak());
  }
  const MeanInterval response = mean_interval(means, target.confidence);
  store.finish_fixed_run(run_id, response);
  std::ostream& log = std::cerr;
  FixedRunCheck check =
      check_fixed_run(store, config, probing, sample, run_id, o.rate, trials, response, log);
  double cost = 0;
  for (const auto& t : trials) cost += t.cost_s;

  if (common.json) {
    nlohmann::json tj = nlohmann::json::array();
    for (const auto& t : trials) tj.push_back(trial_json(t, trial_saturated(t, config.peak())));
    nlohmann::json mismatch;
    if (check.mismatch_id) {
      mismatch = {
          {"mismatch_id", *check.mismatch_id},
          {"expected_ms", *check.expected_ms},
          {"measured_ms", response.mean},
          {"ratio", response.mean / *check.expected_ms},
          {"center", check.centers.worst ? nlohmann::json(check.centers.worst->center) : nlohmann::json()},
          {"probe_ids", check.probe_ids}};
    }
    nlohmann::json out{
        {"run_id", run_id},
        {"sample", sample_json(config, sample)},
        {"rate", o.rate},
        {"runlength_s", runlength},
        {"trials", tj},
        {"response",
         {{"mean_ms", response.mean},
          {"ci_low_ms", response.low},
          {"ci_high_ms", response.high},
          {"confidence", target.confidence}}},
        {"saturated", any_saturated},
        {"expectation",
         {{"response_ms", check.expected_ms ? nlohmann::json(*check.expected_ms) : nlohmann::json()},
          {"bottleneck", check.bottleneck}}},
        {"tolerance", probing.tolerance},
        {"mismatch", mismatch},
        {"centers", centers_json(check.centers)},
        {"cost_s", cost}};
    std::cout << out.dump(2) << "\n";
  } else {
    fmt::print("fixed-rate run {} of {} at {:g}/s: {} trials of {:g} s\n", run_id, sample.key(), o.rate,
               trials.size(), runlength);
    fmt::print("  {:>5} {:>11} {:>10} {:>10} {:>8}\n", "trial", "achieved/s", "mean_ms", "p99_ms", "errors");
    for (std::size_t i = 0; i < trials.size(); ++i) {
      const TrialResult& t = trials[i];
      fmt::print("  {:>5} {:>11.1f} {:>10.3f} {:>10.3f} {:>8}{}\n", i + 1, t.achieved_rate, t.mean_ms,
                 t.p99_ms, t.errors, trial_saturated(t, config.peak()) ? "  saturated" : "");
    }
    fmt::print("mean response {:.3f} ms, {:g}% CI [{:.3f}, {:.3f}] (Student t, {} trials)\n", response.mean,
               target.confidence * 100, response.low, response.high, trials.size());
    if (any_saturated) fmt::print("some trials saturated: their mean is not a steady-state response time\n");
    if (!check.expected_ms) {
      fmt::print("expectation: none ({})\n", config.model() ? "the model saturates at this rate or cannot "
                                                              "be solved for this sample"
                                                            : "the config has no [model]");
    } else if (check.mismatch_id) {
      fmt::print(
          "expectation R({:g}/s) = {:.3f} ms (bottleneck {}): MISMATCH {} — outside the CI and off by "
          "{:+.0f}% (tolerance {:.0f}%); {} probe(s) planned\n",
          o.rate, *check.expected_ms, check.bottleneck, *check.mismatch_id,
          (response.mean / *check.expected_ms - 1) * 100, probing.tolerance * 100, check.probe_ids.size());
    } else {
      fmt::print(
          "expectation R({:g}/s) = {:.3f} ms (bottleneck {}): within tolerance ({:.0f}%, or inside the "
          "CI)\n",
          o.rate, *check.expected_ms, check.bottleneck, probing.tolerance * 100);
    }
    for (const auto& d : check.centers.centers) {
      fmt::print("  center {}{}\n", center_deviation_text(d),
                 check.centers.worst && check.centers.worst->center == d.center ? "  <- deviates most" : "");
    }
  }
  return to_int(check.mismatch_id ? ExitStatus::kNegative : ExitStatus::kOk);
}

}  // namespace

Command trial_command() {
  return Command{
      "trial",
      "Run N trials of one sample at one fixed offered rate, store them, print the mean response time with "
      "its Student-t CI (at the [peak] target's confidence), and check it against the expectation model's "
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
        app.add_option("--set,-s", o->set,
                       "factor levels of the sample, e.g. disks=2,threads=16 (others: their default)");
        app.add_option("--rate,-r", o->rate, "offered rate λ of every trial, requests/s (open loop)")
            ->required()
            ->check(cli::finite_number(0, kMaxRate, true));
        app.add_option("--runlength", o->runlength_s,
                       "seconds of measurement per trial, warm-up excluded (default: [peak] runlength_s)")
            ->check(cli::finite_number(0, kMaxSeconds, true));
        app.add_option("--trials,-n", o->trials, "trials to run, at least 2 for a CI (default 3)")
            ->transform(cli::whole_number(2, kMaxTrials));
        app.add_option("--seed", o->seed, "random seed of the simulated testbed (default: [sim] seed)")
            ->transform(cli::seed_number())
            ->each([o](const std::string&) { o->seed_given = true; });
        app.add_flag("--verbose,-v", o->verbose, "log every stored trial (and SUT starts) to stderr");
        return [&common, o] { return run_trial(common, *o); };
      }};
}

}  // namespace wb
