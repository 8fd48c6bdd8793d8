#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/config.hpp"
#include "core/trial.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

// Validates the testbed a config describes, before anything runs: a real testbed ([sut],
// [workload], [[hosts]]) or the simulated one ([sim], returns nullopt). Throws InputError (also
// for a bad $WB_FOREIGN_OWNER_TIMEOUT_S with a real testbed, process_cleanup.hpp).
std::optional<TestbedConfig> validate_testbed(const Config& config);

// The TrialRunner for a validated config: real hosts when `testbed` is set, else the simulated one; a
// trial stops (Interrupted) on a signal or when `stop` returns true. For real hosts it first kills what
// dead controllers left (process_cleanup.hpp) and records every process it starts in the store at
// `store_path`: call it after the store is opened and before anything starts. `verbose` logs to stderr.
std::unique_ptr<TrialRunner> make_trial_runner(const Config& config,
                                               const std::optional<TestbedConfig>& testbed,
                                               std::uint64_t seed, bool verbose,
                                               const std::string& store_path,
                                               std::function<bool()> stop = {});

// The seed a command uses when --seed is not given: [sim] seed, else 1.
std::uint64_t default_seed(const Config& config);

}  // namespace wb
