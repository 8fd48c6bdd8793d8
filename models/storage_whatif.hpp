#pragma once
// Storage what-if [001 §III-C.6-7]: one recorded I/O trace answers for any cache size. The trace's
// block references are replayed through a cache of that size (models/cache_sim.hpp), the misses
// priced by the four-parameter disk (models/disk_model.hpp) when one is given. The replay's first
// `warm_fraction` of the operations only fills the cache: the server the trace came from had been
// serving the workload before it, so counting its cold misses would understate every hit rate.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "models/cache_sim.hpp"
#include "models/disk_model.hpp"
#include "models/io_classify.hpp"
#include "models/io_trace.hpp"

namespace wb {

struct StorageAnswer {
  double cache_mb = 0;
  std::uint64_t cache_blocks = 0;
  std::uint64_t ops = 0, reads = 0, writes = 0, metas = 0;  // counted (after warm-up) operations
  std::uint64_t read_hits = 0;                              // reads whose every block hit
  double read_hit_rate = 0;                                 // read_hits / reads (1 with no reads)
  double block_hit_rate = 0;                                // over the counted block references
  double disk_visits = 0;                                   // (reads with a miss + writes) / ops
  std::optional<double> disk_ms;  // mean disk service per such I/O, ms (with a disk)
  std::map<std::string, double>
      class_attributes;  // "<class>_fraction" of the whole trace (with a classifier)
};

class StorageModel {
 public:
  // Throws InputError for an empty trace, an unknown policy or warm_fraction outside [0, 0.9].
  // With a classifier, the trace's class shares (io_class_attributes) go into every answer.
  StorageModel(std::vector<IoOp> ops, std::uint64_t block_bytes, std::string policy,
               std::optional<DiskParams> disk, double warm_fraction = 0.5,
               const IoClassifier* classifier = nullptr);

  // The answer for a cache of `cache_mb` MiB (whole blocks, rounded down); memoized per size.
  // Thread-safe. Throws InputError for a size that is negative or not finite.
  StorageAnswer at(double cache_mb) const;

  std::uint64_t footprint_blocks() const { return trace_.distinct_blocks; }
  std::uint64_t block_bytes() const { return trace_.block_size; }
  const std::string& policy() const { return policy_; }

 private:
  std::vector<IoOp> ops_;
  BlockTrace trace_;
  std::string policy_;
  std::optional<DiskParams> disk_;
  double counted_from_s_ = 0;  // ops starting at or after this are counted
  std::map<std::string, double> class_attributes_;
  mutable std::mutex mu_;
  mutable std::map<std::uint64_t, StorageAnswer> memo_;
};

}  // namespace wb
