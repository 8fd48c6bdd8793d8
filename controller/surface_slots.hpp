#pragma once
// Testbed slots for `map-surface --parallel K` [003 §4: "planning experiments to run on multiple
// hardware setups in parallel"]: K copies of the testbed that can each run one search at a time.
//
// A real testbed lists its slots in the config, each with its own hosts:
//   [[slots]]
//   sut_host = "server-a"          # a [[hosts]] name: where this slot's SUT runs
//   generators = ["client-a"]      # [[hosts]] names: this slot's load generators
//   port = 7401                    # optional: this slot's SUT port (default: [sut] port)
// The simulated testbed has K virtual slots (independent simulators).
#include <optional>
#include <vector>

#include "core/config.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

// The testbed of each slot. For a real testbed: one TestbedConfig per [[slots]] entry (or the
// testbed itself when there is no [[slots]]); for the simulated one: `parallel` nullopts.
// InputError (FILE:LINE:KEY) for an unknown host, a host shared by two slots, or --parallel
// larger than the number of slots.
std::vector<std::optional<TestbedConfig>> testbed_slots(const Config& config,
                                                        const std::optional<TestbedConfig>& testbed,
                                                        int parallel);

}  // namespace wb
