#pragma once
// Turns refserver's per-stage statistics (rpc::Op::kStats, sut/stage_stats.hpp; fetched with
// fetch_refserver_stats of harness/real_trial_runner.hpp) into calibrated demands of the [model]
// centers named like a stage [issue 7.2; 000 §4.1.1: direct measurements of a center's demand].
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/expectation.hpp"

namespace wb {

// Demands per visit measured by refserver, for the centers of `net` named like its stages:
//   "cpu":  the cpu stage's mean over every read, write and metadata request; visits 1.
//   "disk": the disk stage's mean over reads and writes (one disk visit each); visits = the
//           fraction of requests that were reads or writes.
//   "net":  what the client saw beyond refserver's own residence time: `end_to_end_ms` (the load
//           generator's mean response time over the same requests) minus the residence stage's
//           mean — the loopback, the generator's and refserver's network threads, and the wake-up
//           of the thread that sleeps out the last stage. Only for a delay center named "net"
//           outside any pool, only when `end_to_end_ms` is given and the difference is positive.
// `sample` is where it was measured. Throws Error if the stats counted no requests.
std::vector<CalibratedDemand> demands_from_refserver_stats(
    const nlohmann::json& stats, const QueueNetwork& net, const Sample& sample,
    std::optional<double> end_to_end_ms = std::nullopt);

}  // namespace wb
