#include "models/storage_whatif.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace wb {

StorageModel::StorageModel(std::vector<IoOp> ops, std::uint64_t block_bytes, std::string policy,
                           std::optional<DiskParams> disk, double warm_fraction,
                           const IoClassifier* classifier)
    : ops_(std::move(ops)), policy_(std::move(policy)), disk_(disk) {
  if (ops_.empty()) throw InputError("storage what-if: the I/O trace holds no operation");
  const auto& known = cache_policies();
  if (std::find(known.begin(), known.end(), policy_) == known.end())
    throw InputError(fmt::format("storage what-if: unknown cache policy '{}' (known: {})", policy_,
                                 fmt::join(known, ", ")));
  if (!(warm_fraction >= 0 && warm_fraction <= 0.9))
    throw InputError(fmt::format("storage what-if: warm fraction {} is outside [0, 0.9]", warm_fraction));
  if (disk_) check_disk_params(*disk_);
  trace_ = block_trace(ops_, block_bytes);
  std::vector<double> starts;
  starts.reserve(ops_.size());
  for (const auto& op : ops_) starts.push_back(op.start_s);
  std::sort(starts.begin(), starts.end());
  const auto first = static_cast<std::size_t>(std::floor(warm_fraction * static_cast<double>(starts.size())));
  counted_from_s_ = starts[std::min(first, starts.size() - 1)];
  if (classifier != nullptr) class_attributes_ = io_class_attributes(*classifier, ops_);
}

StorageAnswer StorageModel::at(double cache_mb) const {
  if (!(cache_mb >= 0) || !std::isfinite(cache_mb))
    throw InputError(fmt::format("storage what-if: cache size {} MiB must be finite and >= 0", cache_mb));
  const auto blocks = static_cast<std::uint64_t>(
      std::floor(cache_mb * 1024.0 * 1024.0 / static_cast<double>(trace_.block_size)));
  {
    std::lock_guard lock(mu_);
    auto it = memo_.find(blocks);
    if (it != memo_.end()) {
      StorageAnswer a = it->second;
      a.cache_mb = cache_mb;
      return a;
    }
  }
  const CacheRun run = simulate_cache(trace_, blocks, policy_);
  // An op counts as a hit only if every one of its blocks did.
  std::vector<char> missed(ops_.size(), 0);
  std::uint64_t refs = 0, hits = 0;
  for (std::size_t r = 0; r < trace_.refs.size(); ++r) {
    const BlockRef& ref = trace_.refs[r];
    if (ops_[ref.op].start_s < counted_from_s_) continue;
    ++refs;
    if (run.hit[r]) {
      ++hits;
    } else {
      missed[ref.op] = 1;
    }
  }
  StorageAnswer a;
  a.cache_mb = cache_mb;
  a.cache_blocks = blocks;
  a.class_attributes = class_attributes_;
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    const IoOp& op = ops_[i];
    if (op.start_s < counted_from_s_) continue;
    ++a.ops;
    if (op.kind == IoKind::kMeta || op.size == 0) {
      ++a.metas;
    } else if (op.kind == IoKind::kWrite) {
      ++a.writes;
    } else {
      ++a.reads;
      if (!missed[i]) ++a.read_hits;
    }
  }
  a.read_hit_rate = a.reads == 0 ? 1.0 : static_cast<double>(a.read_hits) / static_cast<double>(a.reads);
  a.block_hit_rate = refs == 0 ? 1.0 : static_cast<double>(hits) / static_cast<double>(refs);
  const std::uint64_t disk_ios = (a.reads - a.read_hits) + a.writes;
  a.disk_visits = a.ops == 0 ? 0.0 : static_cast<double>(disk_ios) / static_cast<double>(a.ops);
  if (disk_ && disk_ios > 0) {
    std::vector<IoOp> misses = miss_stream(ops_, trace_, run);
    std::erase_if(misses, [&](const IoOp& m) { return m.start_s < counted_from_s_; });
    const DiskPrediction p = predict_disk(misses, *disk_);
    a.disk_ms = p.total_s * 1e3 / static_cast<double>(disk_ios);
  }
  std::lock_guard lock(mu_);
  memo_.emplace(blocks, a);
  return a;
}

}  // namespace wb
