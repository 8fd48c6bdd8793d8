#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/search_result.hpp"

namespace wb {

// How much the mean response time of one trial varied at one load: plain data, from this search
// or from the store's history of the same testbed.
struct VarianceObservation {
  double mean_ms = 0;      // mean over the load's trials
  double runlength_s = 0;  // r of those trials
  double variance = 0;     // sample variance of the trials' mean response times
  int trials = 0;
  double overhead_s = 0;  // mean of cost − r per trial (warm-up, restart, settle)
};

// One observation per load with at least two trials of one runlength that did not saturate.
std::vector<VarianceObservation> variance_observations(const std::vector<TestLoad>& loads);

// What a new test load is planned with: its runlength, and the first look at which its peak may be
// claimed (TestLoad::first_claim_look; 0: every scheduled look).
struct RunPlan {
  double runlength_s = 0;
  int first_claim_look = 0;
};

// Chooses the runlength r of the trials of each new test load [003 §3.2, Alg. 2 Step 5]. Called by
// run_search once per load, before its first trial; every trial of a load has the same r. Pure:
// sees only the search's loads and the observations it was given.
class RunlengthPolicy {
 public:
  virtual ~RunlengthPolicy() = default;
  virtual RunPlan plan(double rate, const std::vector<TestLoad>& history, const PeakConfig& peak,
                       const Target& target) = 0;
  double choose(double rate, const std::vector<TestLoad>& history, const PeakConfig& peak,
                const Target& target) {
    return plan(rate, history, peak, target).runlength_s;
  }
};

// kFixed: always peak.runlength_s. kAdaptive: see runlength.cpp; `prior` is the testbed's history
// from the store (may be empty); `seeded`: the first load is a seed expected at λ*, so it gets the
// peak's runlength.
std::unique_ptr<RunlengthPolicy> make_runlength_policy(RunlengthKind kind,
                                                       std::vector<VarianceObservation> prior = {},
                                                       bool seeded = false);

}  // namespace wb
