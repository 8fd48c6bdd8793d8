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
// those sent, more errors than max_error_ratio of them, or fewer answers inside the measurement
// window than min_throughput_ratio of the offered λr and fewer by more than 5√(λr). The one rule
// for the search, `trial` and loads read back from the store.
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

// [003 Alg. 2] Searches for the peak rate of `sample`. Runs trials through `runner` only; never
// sleeps, reads clocks or touches processes. A runner Error is retried once, then the search
// stops with status kFailed. Interrupted propagates. `runlength` chooses r per load (Step 5);
// null means options.peak.runlength_s for every load. A picker with a fixed_plan() (the strawman)
// instead gets exactly its trials and runlength at every load, no accuracy test, and λ* is the
// highest load below the lowest one above R_sat once the picker stops. When the picker's bracket
// collapses without a claim, the load judged by its mean alone (CI still overlapping the region)
// whose mean was nearest R_sat is measured again at twice its runlength (up to max_runlength_s),
// at most three times per search, before the search gives up.
// Deterministic: the same picker, runner and options give the same result.
SearchResult run_search(const Sample& sample, const SearchOptions& options, LoadPicker& picker,
                        TrialRunner& runner, SearchObserver* observer = nullptr,
                        RunlengthPolicy* runlength = nullptr);

// Fills result.peak_low/peak_high for a found search (see SearchResult); run_search calls it.
void set_peak_interval(SearchResult& result, const SearchOptions& options, bool fixed_plan);

}  // namespace wb
