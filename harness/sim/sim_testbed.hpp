#pragma once
#include <cstdint>

#include "core/config.hpp"
#include "core/trial.hpp"

namespace wb::sim {

// The simulated testbed: a TrialRunner whose trials run the [sim] queue network on a virtual clock,
// costing warm-up + runlength + per-trial overhead in virtual seconds (a search takes milliseconds).
// Deterministic: trial `trial_index` of a sample at a rate draws from a stream derived from (seed,
// sample, rate, trial_index). Not thread-safe; use one per thread.
class SimulatedTestbed final : public TrialRunner {
 public:
  // `timeout_s`: a request slower than this counts as an error (like wbload's request timeout).
  SimulatedTestbed(const SimConfig& config, std::uint64_t seed, double timeout_s = 5.0);

  TrialResult run(const Sample& sample, double rate, double runlength_s, std::uint64_t trial_index) override;

 private:
  const SimConfig& config_;
  std::uint64_t seed_;
  double timeout_s_;
};

// Percentile p (0..1) of xs by nearest rank; xs is reordered. 0 for an empty vector.
double percentile(std::vector<double>& xs, double p);

}  // namespace wb::sim
