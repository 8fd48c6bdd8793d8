#pragma once
#include <cstdint>
#include <memory>

#include "core/config.hpp"
#include "core/trial.hpp"

namespace wb {

// The TrialRunner for a config: the simulated testbed when the config has [sim]. Throws
// InputError when the config describes no testbed this build can run.
std::unique_ptr<TrialRunner> make_trial_runner(const Config& config, std::uint64_t seed);

// The seed a command uses when --seed is not given: [sim] seed, else 1.
std::uint64_t default_seed(const Config& config);

}  // namespace wb
