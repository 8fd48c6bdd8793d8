#pragma once
// Reading the SUT's per-stage times: whether the SUT reports them (the bundled refserver), one
// stats request to refserver, and the mean time per request in each stage from its answer.
#include <chrono>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/testbed_config.hpp"

namespace wb {

// Whether the SUT reports per-stage times: its [sut] start command runs the bundled refserver
// ({refserver}), which answers a stats request (sut/stage_stats.hpp).
bool sut_reports_stages(const TestbedConfig& testbed);

// Sends one stats request to refserver at address:port and returns its JSON; with `reset` the
// server zeroes its counters after answering. Throws Error when it cannot connect, the answer is
// not a stats object, or nothing arrives within `timeout`.
nlohmann::json fetch_refserver_stats(const std::string& address, int port, bool reset,
                                     std::chrono::milliseconds timeout);

// Mean time per request in each stage, ms, from a refserver stats object: each stage's total over
// reads, writes and metadata requests over their count, so disk means are per request like the model's.
// Empty when no such request was counted; Error when the object has another shape.
std::map<std::string, double> stage_means_from_refserver_stats(const nlohmann::json& stats);

}  // namespace wb
