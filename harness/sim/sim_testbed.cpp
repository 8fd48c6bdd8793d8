#include "harness/sim/sim_testbed.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "harness/sim/random.hpp"
#include "harness/sim/simulation.hpp"

namespace wb::sim {

SimulatedTestbed::SimulatedTestbed(const SimConfig& config, std::uint64_t seed, double timeout_s)
    : config_(config), seed_(seed), timeout_s_(timeout_s) {}

TrialResult SimulatedTestbed::run(const Sample& sample, double rate, double runlength_s,
                                  std::uint64_t trial_index) {
  RunSpec spec;
  spec.rate = rate;
  spec.warmup_s = config_.warmup_s;
  spec.runlength_s = runlength_s;
  spec.timeout_s = timeout_s_;
  spec.seed = mix(mix(seed_, hash_text(sample.key())), mix(std::bit_cast<std::uint64_t>(rate), trial_index));
  RunOutcome o = simulate(config_.network, sample, spec);

  TrialResult t;
  t.offered_rate = rate;
  t.runlength_s = runlength_s;
  t.sent = o.sent;
  t.completed = o.completed;
  t.errors = o.timeouts;
  t.achieved_rate = static_cast<double>(o.completed) / runlength_s;
  if (!o.response_ms.empty()) {
    t.mean_ms = std::accumulate(o.response_ms.begin(), o.response_ms.end(), 0.0) /
                static_cast<double>(o.response_ms.size());
    t.max_ms = *std::max_element(o.response_ms.begin(), o.response_ms.end());
    t.p50_ms = nearest_rank(o.response_ms, 0.50);
    t.p90_ms = nearest_rank(o.response_ms, 0.90);
    t.p95_ms = nearest_rank(o.response_ms, 0.95);
    t.p99_ms = nearest_rank(o.response_ms, 0.99);
  }
  t.cost_s = config_.warmup_s + runlength_s + config_.overhead_s;
  check_trial(t);
  return t;
}

}  // namespace wb::sim
