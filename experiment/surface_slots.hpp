#pragma once
// Testbed slots for `map-surface --parallel K` [003 §4: "planning experiments to run on multiple
// hardware setups in parallel"]: K copies of the testbed that each run one search at a time. A real
// testbed lists them as [[slots]] (sut_host, generators, optional port); the simulated one has K
// virtual slots (independent simulators).
#include <optional>
#include <vector>

#include "core/config.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

// The testbed of each slot: one TestbedConfig per [[slots]] entry (or the testbed itself without any),
// or `parallel` nullopts for the simulated one. InputError (FILE:LINE:KEY) for an unknown host, a host
// shared by two slots, or --parallel above the number of slots.
std::vector<std::optional<TestbedConfig>> testbed_slots(const Config& config,
                                                        const std::optional<TestbedConfig>& testbed,
                                                        int parallel);

}  // namespace wb
