#pragma once
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/search_result.hpp"
#include "core/trial.hpp"
#include "policies/load_picker.hpp"

namespace wb {

class RunlengthPolicy;

struct SearchOptions {
  PeakConfig peak;  // region, limits, runlength
  Target target;    // confidence c and accuracy a
};

// Told about progress as it happens; the controller writes each trial to the store here, so a
// crash loses at most the trial in flight.
class SearchObserver {
 public:
  virtual ~SearchObserver() = default;
  virtual void on_trial(std::size_t load_index, const TrialResult& trial) = 0;
  virtual void on_load(std::size_t load_index, const TestLoad& load) = 0;
  // A trial could not run; `retrying` says whether the search tries it once more.
  virtual void on_trial_error(double /*rate*/, const std::string& /*what*/, bool /*retrying*/) {}
};

// Whether one trial saturated the SUT: nothing sent, fewer completed than min_throughput_ratio of
// those sent, more errors than max_error_ratio, or answers in the window short of λr by both
// 1 − min_throughput_ratio and 5√(λr). The one rule for the search, `trial` and stored loads.
bool trial_saturated(const TrialResult& t, const PeakConfig& p);

// The verdict for a load from its trials [003 Alg. 2 Steps 8-10]; fills load.ci (for a peak, the
// CI that is claimed) and load.saturated. kInvalid means "overlaps, needs more trials".
// REQUIRES: load.trials.size() >= 2.
Verdict judge_load(TestLoad& load, const SearchOptions& options);

// The trial counts at which the accuracy of an overlapping load is examined when
// options.peak.sequential is "bonferroni": peak_min_trials, then growing by look_growth.
std::vector<int> accuracy_looks(const PeakConfig& peak);

// The looks at which a claim is examined: those of `looks` from first_claim_look on (the last look
// when none is).
std::vector<int> claim_looks_from(const std::vector<int>& looks, int first_claim_look);

// [003 Alg. 2] Searches for the peak rate of `sample` through `runner` only (never sleeps, reads
// clocks or touches processes). A runner Error is retried once, then status kFailed; Interrupted
// propagates. `runlength` picks r per load (Step 5; null: peak.runlength_s). A fixed_plan() picker
// (the strawman) gets its trials and r at every load, no accuracy test, and λ* is the highest load
// below the lowest above R_sat. A collapsed bracket retries up to three loads before giving up.
// Deterministic: the same picker, runner and options give the same result.
SearchResult run_search(const Sample& sample, const SearchOptions& options, LoadPicker& picker,
                        TrialRunner& runner, SearchObserver* observer = nullptr,
                        RunlengthPolicy* runlength = nullptr);

// Fills result.peak_low/peak_high for a found search (see SearchResult); run_search calls it.
void set_peak_interval(SearchResult& result, const SearchOptions& options, bool fixed_plan);

}  // namespace wb
