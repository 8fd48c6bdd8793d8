#pragma once
// After every finished search: store the expectation with it, and when the measured λ* disagrees
// with it (models/mismatch.hpp), record a mismatch ranked by information gain and schedule probes
// (models/probe_plan.hpp) [000 §3.3.2; issue 8.2, 8.3].
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <vector>

#include "controller/expectation_record.hpp"
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
// with one Store each.
SearchCheck check_search(store::Store& store, const Config& config, const ProbeConfig& probing,
                         const Sample& sample, std::int64_t search_id, const SearchResult& result,
                         std::optional<std::int64_t> from_probe, std::ostream& log);

// The testbed's found searches with an expectation, classified by the mismatch rule, for the
// information-gain ranking (samples without a level of every factor are left out).
std::vector<ClassifiedObservation> classified_observations(store::Store& store, const Config& config,
                                                           const std::vector<MeasuredVsExpected>& rows,
                                                           double tolerance);

// Seconds since the epoch (the store's clock for probes).
std::int64_t unix_now();

}  // namespace wb
