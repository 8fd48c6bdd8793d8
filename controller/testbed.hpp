#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "core/config.hpp"
#include "core/trial.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

// Validates the testbed a config describes, before anything runs: a real testbed ([sut],
// [workload], [[hosts]]) or the simulated one ([sim], returns nullopt). Throws InputError.
std::optional<TestbedConfig> validate_testbed(const Config& config);

// The TrialRunner for a validated config: real hosts when `testbed` is set, else the simulated
// testbed. `verbose` logs SUT starts and uploads to stderr. A trial in flight stops (Interrupted)
// on a signal, or when `stop` (if given) returns true.
std::unique_ptr<TrialRunner> make_trial_runner(const Config& config,
                                               const std::optional<TestbedConfig>& testbed,
                                               std::uint64_t seed, bool verbose,
                                               std::function<bool()> stop = {});

// The seed a command uses when --seed is not given: [sim] seed, else 1.
std::uint64_t default_seed(const Config& config);

}  // namespace wb
