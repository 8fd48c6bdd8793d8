#pragma once
// After every finished search: store the expectation with it, and when the measured λ* disagrees
// with it (models/mismatch.hpp), record a mismatch ranked by information gain and schedule probes
// (models/probe_plan.hpp) [000 §3.3.2; issue 8.2, 8.3].
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/expectation_record.hpp"
#include "controller/zcart_attributes.hpp"
#include "core/config.hpp"
#include "core/search_result.hpp"
#include "models/mismatch.hpp"
#include "models/probe_plan.hpp"
#include "store/store.hpp"

namespace wb {

struct SearchCheck {
  bool expectation_stored = false;
  std::optional<std::int64_t> mismatch_id;
  std::vector<std::int64_t> probe_ids;  // planned by this mismatch
};

// Stores the expectation of search `search_id` (record_expectation) and checks `result` against
// it. A mismatch is written with its ranked attributes and one line "mismatch: ..." goes to `log`.
// Probes are planned unless the search ran a probe (`from_probe`) or a mismatch was recorded at
// this sample before: a mismatch point schedules probes once. Safe to call from several threads
// with one Store each. `attributes`: the config's Z-CART attributes, shared so their cached
// values serve many calls (one thread only); null: built for this call.
SearchCheck check_search(store::Store& store, const Config& config, const ProbeConfig& probing,
                         const Sample& sample, std::int64_t search_id, const SearchResult& result,
                         std::optional<std::int64_t> from_probe, std::ostream& log,
                         const ZCartAttributes* attributes = nullptr);

// The expectation model's centers at `rate` next to the mean stage times of `trials` (those with
// stage times; TrialResult::stage_ms): every compared center and the one that deviates most
// (models/mismatch.hpp). Empty when no trial has stage times, the config has no [model], or the
// model cannot be solved for this sample.
struct CenterCheck {
  std::vector<CenterDeviation> centers;
  std::optional<CenterDeviation> worst;
};
CenterCheck check_centers(store::Store& store, const Config& config, const Sample& sample, double rate,
                          const std::vector<TrialResult>& trials);

// A fixed-rate run (`workbench trial`): the trials of `sample` at one rate, stored as search
// `run_id`, against the expectation's R(rate) [issue 8.2]. A mismatch when R_expected lies
// outside the CI of the mean response time and is off by more than probing.tolerance of it; it
// is recorded with metric "mean_ms", ranked attributes, the deviating center when the trials
// carry stage times, and plans probes like a search's mismatch.
struct FixedRunCheck {
  std::optional<double> expected_ms;  // nullopt: no [model], unsolvable, or saturated at this rate
  std::string bottleneck;
  bool mismatch = false;
  std::optional<std::int64_t> mismatch_id;
  std::vector<std::int64_t> probe_ids;
  CenterCheck centers;
};
FixedRunCheck check_fixed_run(store::Store& store, const Config& config, const ProbeConfig& probing,
                              const Sample& sample, std::int64_t run_id, double rate,
                              const std::vector<TrialResult>& trials, const MeanInterval& response,
                              std::ostream& log);

// How a stored mismatch reads: "λ* 41.2/s measured, 60.5/s expected (ratio 0.68)" or, for a
// fixed-rate run, "R 13.2 ms measured, 5.8 ms expected (ratio 2.28)".
std::string mismatch_figures_text(const store::Store::MismatchRow& m);
// Its center with the figures behind it ("disk: 13.5 ms measured vs 5.6 ms predicted (+142%)"),
// the bare name when the figures are not stored, "" when it has no center.
std::string mismatch_center_text(const store::Store::MismatchRow& m);
// The figures of its center as JSON {center, stages, predicted_ms, measured_ms, deviation,
// share}; null when it has none.
nlohmann::json mismatch_center_json(const store::Store::MismatchRow& m);

// The testbed's found searches with an expectation, classified by the mismatch rule, for the
// information-gain ranking over the Z-CART attributes (controller/zcart_attributes.hpp; samples
// it cannot encode are left out). `attributes`: the config's, built here when null.
std::vector<ClassifiedObservation> classified_observations(store::Store& store, const Config& config,
                                                           const std::vector<MeasuredVsExpected>& rows,
                                                           double tolerance,
                                                           const ZCartAttributes* attributes = nullptr);

// Seconds since the epoch (the store's clock for probes).
std::int64_t unix_now();

}  // namespace wb
