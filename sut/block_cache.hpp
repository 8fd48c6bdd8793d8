#pragma once
// refserver's own buffer cache (--cache-mb): fixed-size blocks of (file, block number), replaced by
// LRU or one-bit CLOCK. A read whose every block is resident skips the disk stage; a write
// allocates its blocks and still goes to disk (write-through), as the storage what-if modules
// assume [001 §III-C.2]. Written apart from models/cache_sim so the model is checked against an
// implementation it does not share (refserver links no wb_core either).
// Threads: access() and the counters are safe from any thread (one mutex).
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace wb::sut {

enum class CachePolicy { kLru, kClock };

class BlockCache {
 public:
  BlockCache(std::uint64_t capacity_blocks, std::uint64_t block_bytes, CachePolicy policy);

  // References the blocks bytes [offset, offset + size) of `file` cover, in order; returns true if
  // every one was resident. size 0 references nothing and counts as a hit.
  bool access(std::uint64_t file, std::uint64_t offset, std::uint64_t size, bool write);

  // {"policy", "block_bytes", "capacity_blocks", "resident_blocks", "reads", "read_hits",
  //  "writes", "block_refs", "block_hits"}; counts since start or the last reset.
  nlohmann::json stats() const;
  void reset_counts();

 private:
  using Key = std::pair<std::uint64_t, std::uint64_t>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      return std::hash<std::uint64_t>()(k.first * 0x9E3779B97F4A7C15ULL ^ k.second);
    }
  };
  bool touch(const Key& k);  // one block; true on a hit

  const std::uint64_t capacity_, block_bytes_;
  const CachePolicy policy_;
  mutable std::mutex mu_;
  // LRU: most recent at the front.
  std::list<Key> lru_;
  std::unordered_map<Key, std::list<Key>::iterator, KeyHash> lru_index_;
  // CLOCK: a ring of frames with reference bits.
  struct Frame {
    Key key;
    bool referenced = false;
  };
  std::vector<Frame> frames_;
  std::unordered_map<Key, std::size_t, KeyHash> frame_index_;
  std::size_t hand_ = 0;
  std::uint64_t reads_ = 0, read_hits_ = 0, writes_ = 0, block_refs_ = 0, block_hits_ = 0;
};

const char* to_string(CachePolicy p) noexcept;

}  // namespace wb::sut
