#include "experiment/peak_search.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/search_recorder.hpp"
#include "experiment/testbed.hpp"
#include "policies/runlength.hpp"
#include "policies/search.hpp"
#include "policies/seeding.hpp"

namespace wb {

namespace {

// What earlier found searches of this testbed say [003 §3.7]: their peaks (for the seed) and how
// much their trials varied (for the adaptive runlength), newest 200 searches.
struct TestbedHistory {
  std::vector<PastPeak> peaks;
  std::vector<VarianceObservation> variances;
};

TestbedHistory read_history(store::Store& store, const std::string& testbed, const PeakConfig& peak) {
  TestbedHistory h;
  for (std::int64_t id : store.found_searches(testbed, 200)) {
    std::optional<store::SearchRecord> rec = store.search(id);
    if (!rec || !rec->peak_rate) continue;
    std::vector<TestLoad> loads = stored_loads(store, id, peak);
    h.peaks.push_back(past_peak(rec->sample, loads, *rec->peak_rate, peak));
    for (const auto& v : variance_observations(loads)) h.variances.push_back(v);
  }
  return h;
}

}  // namespace

ExpectedPeak expected_peak_for_seeding(const Config& config, store::Store& store) {
  if (!config.model()) return {};
  auto cache = std::make_shared<std::map<std::string, std::optional<double>>>();
  return [&config, cache, calibrations = load_calibrations(store, config)](const Sample& s) {
    auto [it, added] = cache->try_emplace(s.key());
    if (added) {
      try {
        double rate = expect_peak(config, s, calibrations).peak_rate;
        if (rate > 0 && std::isfinite(rate)) it->second = rate;
      } catch (const Interrupted&) {
        throw;
      } catch (const Error&) {  // not solvable here: seed from the neighbour as measured
      }
    }
    return it->second;
  };
}

PreparedPeak prepare_peak(const Config& config, const PeakRequest& request) {
  PreparedPeak p;
  p.target = request.target.empty() ? config.peak().target : Target::parse(request.target);
  p.policy = request.policy.empty() ? config.peak().policy : request.policy;
  const std::vector<std::string> names = picker_names();
  if (request.policy.empty() && std::find(names.begin(), names.end(), p.policy) == names.end()) {
    throw InputError(fmt::format("{}: unknown policy '{}' (known: {})", config.peak().policy_where, p.policy,
                                 fmt::join(names, ", ")));
  }
  make_picker(p.policy, config.peak(), config.peak().start_rate);  // rejects an unknown --policy
  p.runlength = config.peak().runlength;
  if (!request.runlength.empty()) {
    const std::optional<RunlengthKind> kind = parse_runlength_kind(request.runlength);
    if (!kind) {
      throw InputError(fmt::format("--runlength: unknown runlength policy '{}' (known: fixed, adaptive)",
                                   request.runlength));
    }
    p.runlength = *kind;
  }
  p.seed = request.seed ? *request.seed : default_seed(config);
  return p;
}

namespace {

// The live runner of a search another controller finished: its replay needs no trial, and one
// asked for means the store does not hold what it says.
class NoLiveTrials final : public TrialRunner {
 public:
  explicit NoLiveTrials(std::int64_t id) : id_(id) {}
  TrialResult run(const Sample& sample, double rate, double, std::uint64_t) override {
    throw ReplayMismatch(
        fmt::format("search {} of {} is finished, yet replaying it asks for a trial at {:.6g}/s", id_,
                    sample.key(), rate));
  }

 private:
  std::int64_t id_;
};

// Sleeps about `seconds`, waking early on a signal.
void nap(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end && !interrupt_requested())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

}  // namespace

namespace {

// Where a search starts: [peak] start_rate, or with --seeding a seed from the nearest measured
// sample (or the expectation model) and the elasticity its picker aims with.
struct StartChoice {
  double rate = 0;
  bool seeded = false;
  double elasticity = 0;
};

StartChoice choose_start(const Config& config, store::Store& store, const Sample& sample,
                         const PeakRequest& request, const TestbedHistory& history, std::ostream& log) {
  StartChoice start{config.peak().start_rate, false, 0};
  if (!request.seeding) return start;
  auto s = choose_seed(sample, history.peaks, config.factors(), expected_peak_for_seeding(config, store));
  if (!s) return start;
  start = {s->rate, true, s->elasticity};
  if (request.verbose) {
    std::string slope =
        s->elasticity > 0 ? fmt::format("; their curves' elasticity at λ* {:.2f}", s->elasticity) : "";
    if (s->from.empty())
      log << fmt::format("seed {:.1f}/s: the expectation model's λ* (no earlier search)\n", s->rate);
    else
      log << fmt::format("seed {:.1f}/s from {} earlier search(es) of the nearest sample{}{}\n", s->rate,
                         s->from.size(), s->scaled ? ", scaled by the expectation model" : "", slope);
  }
  return start;
}

// The search as recorded: its options are its identity, so a rerun with the same ones resumes it.
store::SearchRecord search_record(const Config& config, const Sample& sample, const PeakRequest& request,
                                  const PreparedPeak& prepared, const SearchOptions& options,
                                  const StartChoice& start) {
  store::SearchRecord rec;
  rec.testbed = config.name();
  rec.sample = sample;
  rec.confidence = options.target.confidence;
  rec.accuracy = options.target.accuracy;
  rec.policy = prepared.policy;
  rec.seed = static_cast<std::int64_t>(prepared.seed);
  nlohmann::json request_options{{"r_sat_ms", options.peak.r_sat_ms},
                                 {"width", options.peak.region.width},
                                 {"start_rate", start.rate},
                                 {"seeding", request.seeding},
                                 {"seed_elasticity", start.elasticity},
                                 {"runlength", to_string(prepared.runlength)},
                                 {"runlength_s", options.peak.runlength_s},
                                 {"min_trials", options.peak.min_trials},
                                 {"max_trials", options.peak.max_trials},
                                 {"max_loads", options.peak.max_loads},
                                 {"budget_s", options.peak.budget_s}};
  if (auto q = metric_quantile(options.peak.region.metric)) {  // mean-region searches keep their old key
    request_options["percentile"] = *q;
    request_options["l_sat_ms"] = options.peak.region.sat_ms;
  }
  rec.options_json = request_options.dump();
  return rec;
}

// One owner per search: resumes an unfinished one with these options, or waits for the live
// controller that runs it (and takes it over if that one dies).
PeakRun open_or_wait(store::Store& store, const Leases& leases, const store::SearchRecord& rec,
                     std::ostream& log) {
  PeakRun run;
  store::Store::OpenedSearch opened = store.open_search(rec, leases.owner(), lease_clock(), leases.judge());
  run.search_id = opened.id;
  run.resumed = opened.resumed;
  if (!opened.holder) return run;
  log << fmt::format(
      "workbench: {}; waiting for it to end (Ctrl-C stops waiting)\n",
      describe_holder(fmt::format("search {} of {}", opened.id, rec.sample.key()), *opened.holder));
  while (leases.acquire(store, search_lease(run.search_id))) {
    nap(leases.heartbeat_s());
    check_interrupt();
  }
  std::optional<store::SearchRecord> now = store.search(run.search_id);
  if (now && unfinished(now->status)) {
    store.set_search_status(run.search_id, store::SearchState::kRunning);
    run.resumed = true;
    log << fmt::format("workbench: its controller stopped; this one continues search {}\n", run.search_id);
  } else {
    run.finished_by_other = true;
  }
  return run;
}

}  // namespace

PeakRun run_peak_search(const Config& config, store::Store& store, const Leases& leases, const Sample& sample,
                        const PeakRequest& request, const PreparedPeak& prepared, std::ostream& log,
                        const std::function<void(const PeakRun&)>& finish) {
  SearchOptions options{config.peak(), prepared.target};
  std::optional<TestbedConfig> real = validate_testbed(config);
  TestbedHistory history;
  if (request.seeding || prepared.runlength == RunlengthKind::kAdaptive)
    history = read_history(store, config.name(), config.peak());
  const StartChoice start = choose_start(config, store, sample, request, history, log);
  std::unique_ptr<LoadPicker> picker =
      start.seeded ? make_picker(prepared.policy, config.peak(), start.rate, true, start.elasticity)
                   : make_picker(prepared.policy, config.peak(), config.peak().start_rate);
  std::unique_ptr<RunlengthPolicy> runlength =
      make_runlength_policy(prepared.runlength, history.variances, start.seeded);
  PeakRun run =
      open_or_wait(store, leases, search_record(config, sample, request, prepared, options, start), log);

  std::vector<TrialResult> recorded;
  for (const store::StoredTrial& t : store.trials(run.search_id)) recorded.push_back(t.trial);
  if (run.resumed && !recorded.empty())
    log << fmt::format("workbench: resuming search {} of {} from {} stored trial(s)\n", run.search_id,
                       sample.key(), recorded.size());
  std::unique_ptr<TrialRunner> testbed;
  if (run.finished_by_other)
    testbed = std::make_unique<NoLiveTrials>(run.search_id);
  else
    testbed = make_trial_runner(config, real, prepared.seed, request.verbose, store.path(), request.stop);
  StoringObserver observer(store, run.search_id, request.verbose, recorded.size());
  InterruptibleRunner live(*testbed, request.stop);
  ReplayingRunner runner(live, std::move(recorded));
  try {
    run.result = run_search(sample, options, *picker, runner, &observer, runlength.get());
  } catch (const Interrupted&) {
    // Resumable: the same command continues it from its stored trials.
    store.set_search_status(run.search_id, store::SearchState::kInterrupted);
    leases.release(store, search_lease(run.search_id));
    throw;
  }
  if (!run.finished_by_other) {
    store::Transaction tx = store.transaction();
    store.finish_search(run.search_id, run.result);
    if (finish) finish(run);
    tx.commit();
  }
  leases.release(store, search_lease(run.search_id));
  return run;
}

}  // namespace wb
