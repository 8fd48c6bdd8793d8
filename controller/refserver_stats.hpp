#pragma once
// Reads refserver's per-stage statistics (rpc::Op::kStats, sut/stage_stats.hpp) over one TCP
// connection, and turns them into calibrated demands of the [model] centers named like a stage
// [issue 7.2; 000 §4.1.1: direct measurements of a center's demand].
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/expectation.hpp"

namespace wb {

// Sends one stats request to refserver at address:port and returns its JSON. Throws Error when
// it cannot connect, the answer is not a stats object, or nothing arrives within `timeout`.
nlohmann::json fetch_refserver_stats(const std::string& address, int port, std::chrono::milliseconds timeout);

// Demands per visit measured by refserver, for the centers of `net` named like its stages:
//   "cpu":  the cpu stage's mean over every read, write and metadata request; visits 1.
//   "disk": the disk stage's mean over reads and writes (one disk visit each); visits = the
//           fraction of requests that were reads or writes.
// `sample` is where it was measured. Throws Error if the stats counted no requests.
std::vector<CalibratedDemand> demands_from_refserver_stats(const nlohmann::json& stats,
                                                           const QueueNetwork& net, const Sample& sample);

}  // namespace wb
