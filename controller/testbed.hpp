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

// The TrialRunner for a validated config: real hosts when `testbed` is set, else the simulated
// testbed. `verbose` logs SUT starts and uploads to stderr. A trial in flight stops (Interrupted)
// on a signal, or when `stop` (if given) returns true.
// For real hosts it first kills what dead controllers left running on this testbed (recorded in
// the store at `store_path`, process_cleanup.hpp), saying so on stderr, and the runner records
// every process it starts there until it is stopped. Call it after the store was opened (and so
// after validation) and before anything starts.
std::unique_ptr<TrialRunner> make_trial_runner(const Config& config,
                                               const std::optional<TestbedConfig>& testbed,
                                               std::uint64_t seed, bool verbose,
                                               const std::string& store_path,
                                               std::function<bool()> stop = {});

// The seed a command uses when --seed is not given: [sim] seed, else 1.
std::uint64_t default_seed(const Config& config);

}  // namespace wb
