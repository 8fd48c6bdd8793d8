#include "controller/testbed.hpp"

#include "core/error.hpp"
#include "harness/sim/sim_testbed.hpp"

namespace wb {

std::unique_ptr<TrialRunner> make_trial_runner(const Config& config, std::uint64_t seed) {
  if (config.sim()) return std::make_unique<sim::SimulatedTestbed>(*config.sim(), seed);
  throw InputError(config.file() + ": no testbed to run: add a [sim] section (simulated testbed)");
}

std::uint64_t default_seed(const Config& config) { return config.sim() ? config.sim()->seed : 1; }

}  // namespace wb
