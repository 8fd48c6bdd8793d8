#include "sut/block_cache.hpp"

namespace wb::sut {

const char* to_string(CachePolicy p) noexcept { return p == CachePolicy::kLru ? "lru" : "clock"; }

BlockCache::BlockCache(std::uint64_t capacity_blocks, std::uint64_t block_bytes, CachePolicy policy)
    : capacity_(capacity_blocks), block_bytes_(block_bytes), policy_(policy) {}

bool BlockCache::touch(const Key& k) {
  ++block_refs_;
  if (capacity_ == 0) return false;
  if (policy_ == CachePolicy::kLru) {
    auto it = lru_index_.find(k);
    if (it != lru_index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++block_hits_;
      return true;
    }
    if (lru_.size() == capacity_) {
      lru_index_.erase(lru_.back());
      lru_.pop_back();
    }
    lru_.push_front(k);
    lru_index_[k] = lru_.begin();
    return false;
  }
  auto it = frame_index_.find(k);
  if (it != frame_index_.end()) {
    frames_[it->second].referenced = true;
    ++block_hits_;
    return true;
  }
  if (frames_.size() < capacity_) {  // still filling: no eviction
    frame_index_[k] = frames_.size();
    frames_.push_back(Frame{k, true});
    return false;
  }
  while (frames_[hand_].referenced) {  // second chance
    frames_[hand_].referenced = false;
    hand_ = (hand_ + 1) % frames_.size();
  }
  frame_index_.erase(frames_[hand_].key);
  frames_[hand_] = Frame{k, true};
  frame_index_[k] = hand_;
  hand_ = (hand_ + 1) % frames_.size();
  return false;
}

bool BlockCache::access(std::uint64_t file, std::uint64_t offset, std::uint64_t size, bool write) {
  std::lock_guard lock(mu_);
  if (write) {
    ++writes_;
  } else {
    ++reads_;
  }
  bool all = true;
  if (size > 0) {
    const std::uint64_t last = offset + size - 1 < offset ? UINT64_MAX : offset + size - 1;
    for (std::uint64_t b = offset / block_bytes_; b <= last / block_bytes_; ++b) {
      all = touch({file, b}) && all;
      if (b == UINT64_MAX) break;
    }
  }
  if (all && !write) ++read_hits_;
  return all;
}

nlohmann::json BlockCache::stats() const {
  std::lock_guard lock(mu_);
  return {{"policy", to_string(policy_)},
          {"block_bytes", block_bytes_},
          {"capacity_blocks", capacity_},
          {"resident_blocks", policy_ == CachePolicy::kLru ? lru_.size() : frames_.size()},
          {"reads", reads_},
          {"read_hits", read_hits_},
          {"writes", writes_},
          {"block_refs", block_refs_},
          {"block_hits", block_hits_}};
}

void BlockCache::reset_counts() {
  std::lock_guard lock(mu_);
  reads_ = read_hits_ = writes_ = block_refs_ = block_hits_ = 0;
}

}  // namespace wb::sut
