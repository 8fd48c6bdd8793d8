#pragma once
#include <cstdint>
#include <vector>

#include "core/queue_network.hpp"
#include "core/sample.hpp"

namespace wb::sim {

// One run of the open queue network on a virtual clock.
struct RunSpec {
  double rate = 0;         // Poisson arrival rate λ, requests/s
  double warmup_s = 0;     // arrivals before this are simulated but not measured
  double runlength_s = 0;  // measured arrivals: [warmup, warmup + runlength)
  double timeout_s = 5;    // a measured request not done within this is a timeout
  std::uint64_t seed = 1;
};

struct RunOutcome {
  std::uint64_t sent = 0;           // arrivals in the measured window
  std::uint64_t completed = 0;      // of those, done within the timeout
  std::uint64_t timeouts = 0;       // sent - completed
  std::vector<double> response_ms;  // of completed requests, in completion order
  // Per-center busy fraction over the measured window (pools: mean tokens held / tokens).
  std::vector<double> utilization;
};

// Simulates `net` for `sample`: requests visit the non-pool centers in declaration order, each
// floor(visits) times plus one with probability frac(visits), holding a pool's token from its first
// center within the pool until the next center outside it. Deterministic for a given spec. Throws
// InputError if a server count evaluates below 1 or a demand is not positive for this sample.
RunOutcome simulate(const QueueNetwork& net, const Sample& sample, const RunSpec& spec);

// The q-quantile of `xs` by the nearest-rank rule (reorders xs); 0 for an empty vector.
double nearest_rank(std::vector<double>& xs, double q);

}  // namespace wb::sim
