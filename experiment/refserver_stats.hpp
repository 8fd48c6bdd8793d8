#pragma once
// Turns refserver's per-stage statistics (sut/stage_stats.hpp; fetched by harness/sut_stage_stats.hpp)
// into calibrated demands of the [model] centers named like a stage [000 §4.1.1: direct measurements
// of a center's demand].
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/expectation.hpp"

namespace wb {

// Demands per visit measured by refserver, for the centers of `net` named like its stages: "cpu" (the
// cpu stage over reads, writes and metadata; 1 visit), "disk" (the disk stage over reads and writes;
// visits their share), and a delay center "net" outside pools: `end_to_end_ms`, the generator's mean
// over the same requests, minus the residence stage, when given and positive. `sample` is where it
// was measured. Throws Error if the stats counted no requests.
std::vector<CalibratedDemand> demands_from_refserver_stats(
    const nlohmann::json& stats, const QueueNetwork& net, const Sample& sample,
    std::optional<double> end_to_end_ms = std::nullopt);

// Demands by the service demand law D = U/X from refserver's per-disk busy time over the stats
// interval, visits by the forced flow law, for a [model] center "disk" outside pools only
// (docs/decisions.md#calibration-scope). Empty without such a center or disk work. Throws Error if the
// stats cover no time or no completed request.
std::vector<CalibratedDemand> demands_from_utilization(const nlohmann::json& stats, const QueueNetwork& net,
                                                       const Sample& sample);

}  // namespace wb
