#pragma once
// The buffer-cache what-if module [001 §III-C.6]: a trace's block references (each block an op
// covers, ops in start_s order, meta ops none) replayed through a cache size and policy, giving
// the hits and the I/Os that reach the disk (models/disk_model.hpp). Writes allocate in the cache
// and each also reaches the disk once, at its start [001 §III-C.2]; write-back is not modelled.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/io_trace.hpp"

namespace wb {

inline constexpr std::uint64_t kDefaultBlockSize = 4096;  // bytes: the page size of Linux's page cache

struct BlockRef {
  std::uint32_t id = 0;     // dense block number, 0 .. distinct_blocks-1, in order of first reference
  std::uint64_t block = 0;  // the block's index in its file (offset / block_size)
  std::size_t op = 0;       // index of the IoOp in the trace given to block_trace
  bool write = false;
};

struct BlockTrace {
  std::uint64_t block_size = kDefaultBlockSize;
  std::vector<BlockRef> refs;         // in replay order
  std::uint32_t distinct_blocks = 0;  // the footprint: cold misses of any cache
};

// The block references of `ops` (see above). Throws InputError if block_size is 0, an op's offset
// + size overflows, or the trace has 2^32 - 1 distinct blocks or more.
BlockTrace block_trace(const std::vector<IoOp>& ops, std::uint64_t block_size = kDefaultBlockSize);

struct CacheCounts {
  std::uint64_t references = 0, hits = 0;
  std::uint64_t read_references = 0, read_hits = 0;  // read hits: 001 §III-C.2's p_i
};

// LRU hits for every cache size at once, from LRU stack distances [Mattson et al. 1970]:
// hits[c] and read_hits[c] are those of a c-block LRU cache, c = 0 .. distinct_blocks (every
// larger cache hits as often as one of distinct_blocks). O(N log N) in the N references.
struct HitCurve {
  std::uint64_t references = 0, read_references = 0;
  std::vector<std::uint64_t> hits, read_hits;  // size distinct_blocks + 1
  CacheCounts at(std::uint64_t blocks) const;  // counts of a `blocks`-block cache (clamped)
};
HitCurve lru_hit_curve(const BlockTrace& trace);

// Parameters of the policies other than the size. 2Q [Johnson & Shasha 1994, §2.1 "full
// version"]: A1in holds round(kin * size) resident blocks seen once (FIFO), A1out the ids of
// round(kout * size) blocks evicted from A1in (no data), Am the rest (LRU); the defaults are the
// paper's recommendation (Kin 25% of the page slots, Kout ids for 50%).
struct CachePolicyOptions {
  double two_q_kin = 0.25;
  double two_q_kout = 0.5;
};

struct CacheRun {
  CacheCounts counts;
  std::vector<bool> hit;  // per reference of the trace, in its order
};

// Replays `trace` through a cache of `blocks` blocks (0: every reference misses) under `policy`:
//  "lru"   least recently used;
//  "clock" one-bit CLOCK (second chance): a reference sets the block's bit, the loading one too;
//          on a miss the hand clears set bits until it finds a clear one, whose block is replaced;
//  "2q"    2Q as in CachePolicyOptions (a hit in A1in leaves it in place; a miss found in A1out
//          enters Am; when A1in is within Kin, Am's LRU block is evicted).
// Throws InputError for an unknown policy (naming the known ones) or 2Q fractions outside [0, 1].
CacheRun simulate_cache(const BlockTrace& trace, std::uint64_t blocks, const std::string& policy,
                        const CachePolicyOptions& options = {});

// The known policy names, in the order above.
const std::vector<std::string>& cache_policies();

// The I/Os that reach the disk [001 §III-C.6: "a trace of requests that have to go to disk"]: for
// each op in replay order, its missed read blocks and all its written blocks, as runs of
// consecutive blocks of one direction, one IoOp per run (block-aligned offset and size, the op's
// start_s, duration_s 0: the disk module predicts it). `trace` must come from `ops` and `run` from
// `trace`; throws wb::Error if their sizes disagree.
std::vector<IoOp> miss_stream(const std::vector<IoOp>& ops, const BlockTrace& trace, const CacheRun& run);

}  // namespace wb
