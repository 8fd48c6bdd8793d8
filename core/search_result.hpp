#pragma once
#include <string>
#include <vector>

#include "core/stats.hpp"
#include "core/trial.hpp"

namespace wb {

// What the search concluded about one test load [003 Alg. 2 Steps 9-10].
enum class Verdict {
  kBelow,   // CI of the mean response time lies wholly below the peak-rate region
  kAbove,   // wholly above it, or a trial saturated (throughput short of offered, or errors)
  kPeak,    // overlaps the region with the target accuracy: λ* = this load
  kInvalid  // no verdict: trials could not run, or the trial cap was hit before the target accuracy
};

const char* to_string(Verdict v);

struct TestLoad {
  double rate = 0;
  double runlength_s = 0;
  std::vector<TrialResult> trials;
  MeanInterval ci;         // of the trials' mean response times, at the target confidence
  bool saturated = false;  // some trial counted as saturated whatever its response time
  Verdict verdict = Verdict::kInvalid;
  // With scheduled looks (policies/search.hpp, judge_load): the peak may be claimed only at the
  // looks from this trial count on, fixed before the load's first trial; 0 means from the first.
  int first_claim_look = 0;
};

enum class SearchStatus {
  kFound,     // a load's response-time CI overlaps the peak-rate region at the target accuracy
  kNotFound,  // the picker ran out of loads, or max_loads was reached
  kBudget,    // the trial cap at one load or the total cost cap was hit first
  kFailed,    // a trial could not run, twice in a row
  // The response jumps from below the region to far above it between two loads closer than the
  // accuracy asks: λ* is the knee (the last load below), peak_low/peak_high the two loads.
  kCliff,
  // Over a band of loads a trial either keeps up (under the region) or falls into a queue it does
  // not leave (far above it): λ* is the highest load below every such stall that always kept up,
  // peak_high the highest rate at which a trial still kept up.
  kBistable
};

const char* to_string(SearchStatus s);
// Whether the search ended with a λ* (found, a cliff's knee, or below a bistable band).
bool has_peak(SearchStatus s);

// The outcome of one peak search [003 Alg. 2].
struct SearchResult {
  SearchStatus status = SearchStatus::kNotFound;
  double peak_rate = 0;   // λ*, when has_peak(status)
  MeanInterval response;  // mean response time CI at λ* (at confidence c)
  std::vector<TestLoad> loads;
  int trials = 0;
  double cost_s = 0;    // sum of trial costs
  std::string message;  // why, for statuses other than found
  // The loads the evidence cannot rule out as the peak, when found: inside the bracket (highest
  // load judged below the region, lowest judged above it) and where the curve fitted through λ*'s
  // response CI may reach the region. peak_high is +infinity when nothing bounds it.
  double peak_low = 0;
  double peak_high = 0;
};

}  // namespace wb
