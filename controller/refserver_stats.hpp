#pragma once
// Turns refserver's per-stage statistics (rpc::Op::kStats, sut/stage_stats.hpp; fetched with
// fetch_refserver_stats of harness/sut_stage_stats.hpp) into calibrated demands of the [model]
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

// Demands by the service demand law D = U/X (models/operational_laws.hpp) where refserver observes
// a utilization: its disks, whose busy time it accounts per disk like a device monitor (the
// "disks" array of the stats). Over the stats interval T (interval_s: since the trial's reset):
//   U = Σ busy_ms over the disks / T, X = the read, write and metadata requests it completed / T,
//   D = U/X per request; visits V = (Σ disk operations / T) / X by the forced flow law, and the
//   demand per visit D/V. For a [model] center named "disk" outside any pool only: refserver
//   reports no utilization of its (emulated) CPU or of the network, so cpu and net are left to
//   the per-stage calibration or their configured demands. Empty when there is no such center or
//   the disks did nothing. Throws Error if the stats cover no time or no completed request.
std::vector<CalibratedDemand> demands_from_utilization(const nlohmann::json& stats, const QueueNetwork& net,
                                                       const Sample& sample);

}  // namespace wb
