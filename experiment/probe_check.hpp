#pragma once
// After every finished search: store the expectation with it and, when the measured λ* disagrees
// (models/mismatch.hpp), record a mismatch ranked by information gain and schedule probes
// (models/probe_plan.hpp) [000 §3.2, §3.3.2].
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/search_result.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/zcart_attributes.hpp"
#include "models/mismatch.hpp"
#include "models/probe_plan.hpp"
#include "store/store.hpp"

namespace wb {

struct SearchCheck {
  bool expectation_stored = false;
  std::optional<std::int64_t> mismatch_id;
  std::vector<std::int64_t> probe_ids;  // planned by this mismatch
};

// Stores the expectation of search `search_id` and checks `result` against it: a mismatch is written
// with its ranked attributes, one "mismatch: ..." line goes to `log`, and probes are planned once per
// mismatch point (never for a search run by a probe, `from_probe`). Safe from several threads with one
// Store each. `attributes`: shared cached Z-CART attributes (one thread only); null: built here.
SearchCheck check_search(store::Store& store, const Config& config, const ProbeConfig& probing,
                         const Sample& sample, std::int64_t search_id, const SearchResult& result,
                         std::optional<std::int64_t> from_probe, std::ostream& log,
                         const ZCartAttributes* attributes = nullptr);

// The expectation model's centers at `rate` next to the mean stage times of the `trials` that have
// them: every compared center and the one that deviates most (models/mismatch.hpp). Empty without
// stage times, without [model], or when the model cannot be solved for this sample.
struct CenterCheck {
  std::vector<CenterDeviation> centers;
  std::optional<CenterDeviation> worst;
};
CenterCheck check_centers(store::Store& store, const Config& config, const Sample& sample, double rate,
                          const std::vector<TrialResult>& trials);

// A fixed-rate run (`workbench trial`) stored as `run_id`, against the expectation's R(rate) [000 §3.2]:
// a mismatch when R_expected lies outside the mean's CI and is off by more than probing.tolerance;
// recorded with metric "mean_ms", ranked attributes and the deviating center, and planning probes.
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

// The compared centers as JSON: [{center, stages, predicted_ms, measured_ms, deviation (null when
// not finite), share}].
nlohmann::json deviations_json(const std::vector<CenterDeviation>& centers);

// The testbed's found searches with an expectation, classified by the mismatch rule, for the
// information-gain ranking over the Z-CART attributes (experiment/zcart_attributes.hpp; samples
// it cannot encode are left out). `attributes`: the config's, built here when null.
std::vector<ClassifiedObservation> classified_observations(store::Store& store, const Config& config,
                                                           const std::vector<MeasuredVsExpected>& rows,
                                                           double tolerance,
                                                           const ZCartAttributes* attributes = nullptr);

// Seconds since the epoch (the store's clock for probes).
std::int64_t unix_now();

}  // namespace wb
