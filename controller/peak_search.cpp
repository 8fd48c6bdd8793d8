#include "controller/peak_search.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "controller/expectation_record.hpp"
#include "controller/interrupt.hpp"
#include "controller/search_recorder.hpp"
#include "controller/testbed.hpp"
#include "core/error.hpp"
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
  store::Statement q = store.db().prepare(
      "SELECT id FROM searches WHERE testbed = ?1 AND status = 'found' AND peak_rate IS NOT NULL "
      "ORDER BY id DESC LIMIT 200");
  q.bind(1, testbed);
  std::vector<std::int64_t> ids;
  while (q.step()) ids.push_back(q.column_int(0));
  for (std::int64_t id : ids) {
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
  make_picker(p.policy, config.peak(), config.peak().start_rate);  // rejects an unknown policy
  p.runlength = request.runlength.empty() ? config.peak().runlength : request.runlength;
  make_runlength_policy(p.runlength);  // rejects an unknown runlength
  p.seed = request.seed ? *request.seed : default_seed(config);
  return p;
}

PeakRun run_peak_search(const Config& config, store::Store& store, const Sample& sample,
                        const PeakRequest& request, const PreparedPeak& prepared, std::ostream& log) {
  SearchOptions options{config.peak(), prepared.target};
  std::unique_ptr<LoadPicker> picker = make_picker(prepared.policy, config.peak(), config.peak().start_rate);
  std::optional<TestbedConfig> real = validate_testbed(config);
  std::unique_ptr<TrialRunner> testbed =
      make_trial_runner(config, real, prepared.seed, request.verbose, store.path());

  TestbedHistory history;
  if (request.seeding || prepared.runlength == "adaptive")
    history = read_history(store, config.name(), config.peak());
  double start_rate = config.peak().start_rate;
  bool seeded = false;
  double seed_elasticity = 0;
  if (request.seeding) {
    if (auto s =
            choose_seed(sample, history.peaks, config.factors(), expected_peak_for_seeding(config, store))) {
      start_rate = s->rate;
      seeded = true;
      seed_elasticity = s->elasticity;
      picker = make_picker(prepared.policy, config.peak(), start_rate, true, seed_elasticity);
      if (request.verbose) {
        std::string slope =
            s->elasticity > 0 ? fmt::format("; their curves' elasticity at λ* {:.2f}", s->elasticity) : "";
        if (s->from.empty())
          log << fmt::format("seed {:.1f}/s: the expectation model's λ* (no earlier search)\n", s->rate);
        else
          log << fmt::format("seed {:.1f}/s from {} earlier search(es) of the nearest sample{}{}\n", s->rate,
                             s->from.size(), s->scaled ? ", scaled by the expectation model" : "", slope);
      }
    }
  }
  std::unique_ptr<RunlengthPolicy> runlength =
      make_runlength_policy(prepared.runlength, history.variances, seeded);
  store::SearchRecord rec;
  rec.testbed = config.name();
  rec.sample = sample;
  rec.confidence = options.target.confidence;
  rec.accuracy = options.target.accuracy;
  rec.policy = prepared.policy;
  rec.seed = static_cast<std::int64_t>(prepared.seed);
  rec.options_json = nlohmann::json{{"r_sat_ms", options.peak.r_sat_ms},
                                    {"width", options.peak.width},
                                    {"start_rate", start_rate},
                                    {"seeding", request.seeding},
                                    {"seed_elasticity", seed_elasticity},
                                    {"runlength", prepared.runlength},
                                    {"runlength_s", options.peak.runlength_s},
                                    {"min_trials", options.peak.min_trials},
                                    {"max_trials", options.peak.max_trials},
                                    {"max_loads", options.peak.max_loads},
                                    {"budget_s", options.peak.budget_s}}
                         .dump();
  PeakRun run;
  run.search_id = store.begin_search(rec);

  StoringObserver observer(store, run.search_id, request.verbose);
  InterruptibleRunner runner(*testbed);
  try {
    run.result = run_search(sample, options, *picker, runner, &observer, runlength.get());
  } catch (const Interrupted&) {
    run.result.status = SearchStatus::kFailed;
    run.result.message = "interrupted";
    store.finish_search(run.search_id, run.result);
    throw;
  }
  store.finish_search(run.search_id, run.result);
  return run;
}

}  // namespace wb
