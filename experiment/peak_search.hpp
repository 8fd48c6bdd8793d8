#pragma once
// One stored peak search [003 Alg. 2] for one sample: what `workbench peak` runs, and what the
// probe agent runs on each probe's sample. Every trial is stored as it ends.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "core/config.hpp"
#include "core/search_result.hpp"
#include "core/target.hpp"
#include "experiment/leases.hpp"
#include "policies/seeding.hpp"
#include "store/store.hpp"

namespace wb {

// The user's choices; empty strings and unset values mean the config's defaults.
struct PeakRequest {
  std::string target;     // "95/90"
  std::string policy;     // load picker
  std::string runlength;  // fixed | adaptive
  std::optional<std::uint64_t> seed;
  bool seeding = false;
  bool verbose = false;
  // Asked before, during and after every trial: true stops the search like Ctrl-C (a probe whose
  // cancel was requested). May be empty.
  std::function<bool()> stop;
};

// A validated request, ready to run (validation happens before any store is opened).
struct PreparedPeak {
  Target target;
  std::string policy;
  RunlengthKind runlength = RunlengthKind::kFixed;
  std::uint64_t seed = 0;
};
// Throws InputError for a bad target, policy, runlength or testbed.
PreparedPeak prepare_peak(const Config& config, const PeakRequest& request);

struct PeakRun {
  std::int64_t search_id = 0;
  SearchResult result;
  bool resumed = false;            // continued from trials stored by an earlier, stopped run
  bool finished_by_other = false;  // another controller ran it while this one waited
};

// The expectation model's λ* per sample for seeding (policies/seeding.hpp), with this testbed's
// calibrations from `store`; empty when the config has no [model]. A sample the model cannot
// solve gets nullopt (its seed is then the neighbour's λ* unscaled). Results are cached.
ExpectedPeak expected_peak_for_seeding(const Config& config, store::Store& store);

// Runs and stores the search under a lease of `leases`, resuming an unfinished one of the same request
// by replay (docs/decisions.md#resume-by-replay); a search a live controller runs is waited for (and
// taken over if it dies), then reported. `finish` (may be empty) runs in the transaction storing the
// result, so what it stores is there exactly when the result is. On Interrupted the search is stored
// "interrupted" and the exception propagates. `log` gets the seeding note (verbose), resume and wait notes.
PeakRun run_peak_search(const Config& config, store::Store& store, const Leases& leases, const Sample& sample,
                        const PeakRequest& request, const PreparedPeak& prepared, std::ostream& log,
                        const std::function<void(const PeakRun&)>& finish = {});

}  // namespace wb
