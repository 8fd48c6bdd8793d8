#pragma once
// One whole search on the simulated testbed, as the statistical policy tests run many of them.
#include <cstdint>
#include <string>

#include "core/config.hpp"
#include "harness/sim/sim_testbed.hpp"
#include "policies/runlength.hpp"
#include "policies/search.hpp"

namespace wb::test {

// Searches `sample` with `policy` from [peak] start_rate, choosing runlengths by `runlength`, on
// the simulated testbed of `config` whose noise is seeded with `seed`.
inline SearchResult sim_search(const Config& config, const Sample& sample, const SearchOptions& o,
                               const std::string& policy, RunlengthKind runlength, std::uint64_t seed) {
  sim::SimulatedTestbed tb(*config.sim(), seed);
  auto picker = make_picker(policy, o.peak, o.peak.start_rate);
  auto rl = make_runlength_policy(runlength);
  return run_search(sample, o, *picker, tb, nullptr, rl.get());
}

}  // namespace wb::test
