#pragma once
// What a real testbed's workload mixes say about each level of the factor that selects them: the
// workload attributes Z-CART splits on [000 §3.3.1], read from the mix files wbload reads
// (workloads/mix.hpp), so the controller needs no knowledge of the generator's file format.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "core/config.hpp"

namespace wb {

// One mix file's operations, weighted by their share of requests.
struct MixFigures {
  double read = 0;        // fraction of reads (and GETs)
  double write = 0;       // fraction of writes (POSTs, SETs)
  double sequential = 0;  // fraction of sequential accesses
  double mean_size = 0;   // mean request size, bytes
};

// The mix file of every level of the one factor that [workload] mix names: (its index in
// config.factors(), one MixFigures per level). Nothing when there is no such factor or a file does not
// load: the attributes are a help, never a reason to refuse a config.
std::optional<std::pair<std::size_t, std::vector<MixFigures>>> mix_levels(const Config& config);

}  // namespace wb
