#include "models/cache_sim.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// Prefix sums over reference times with point updates in O(log N): a 1 at t marks the last
// reference of some block, so a range sum counts the distinct blocks referenced in that range.
class Fenwick {
 public:
  explicit Fenwick(std::size_t n) : tree_(n + 1, 0) {}
  void add(std::size_t at, std::int64_t delta) {
    for (std::size_t i = at + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  std::int64_t prefix(std::size_t end) const {  // sum over [0, end)
    std::int64_t s = 0;
    for (std::size_t i = end; i > 0; i -= i & (~i + 1)) s += tree_[i];
    return s;
  }

 private:
  std::vector<std::int64_t> tree_;
};

// A doubly linked list of block ids with O(1) membership, removal and move to front: the queues
// of LRU and 2Q (an id is in at most one position of a list).
class IdList {
 public:
  explicit IdList(std::size_t n) : prev_(n, kNone), next_(n, kNone), in_(n, false) {}
  bool contains(std::uint32_t id) const { return in_[id]; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void push_front(std::uint32_t id) {
    prev_[id] = kNone, next_[id] = head_, in_[id] = true;
    if (head_ != kNone) prev_[head_] = id;
    head_ = id;
    if (tail_ == kNone) tail_ = id;
    ++size_;
  }
  void remove(std::uint32_t id) {
    (prev_[id] != kNone ? next_[prev_[id]] : head_) = next_[id];
    (next_[id] != kNone ? prev_[next_[id]] : tail_) = prev_[id];
    in_[id] = false;
    --size_;
  }
  std::uint32_t pop_back() {
    std::uint32_t id = tail_;
    remove(id);
    return id;
  }

 private:
  std::vector<std::uint32_t> prev_, next_;
  std::vector<bool> in_;
  std::uint32_t head_ = kNone, tail_ = kNone;
  std::size_t size_ = 0;
};

std::vector<bool> run_lru(const BlockTrace& trace, std::uint64_t blocks) {
  std::vector<bool> hit(trace.refs.size(), false);
  if (blocks == 0) return hit;
  IdList stack(trace.distinct_blocks);
  for (std::size_t t = 0; t < trace.refs.size(); ++t) {
    std::uint32_t id = trace.refs[t].id;
    if (stack.contains(id)) {
      hit[t] = true;
      stack.remove(id);
    } else if (stack.size() == blocks) {
      stack.pop_back();
    }
    stack.push_front(id);
  }
  return hit;
}

std::vector<bool> run_clock(const BlockTrace& trace, std::uint64_t blocks) {
  std::vector<bool> hit(trace.refs.size(), false);
  if (blocks == 0) return hit;
  // More frames than blocks would never be used; this bounds the allocation for huge caches.
  const std::size_t frames = std::min<std::uint64_t>(blocks, trace.distinct_blocks);
  std::vector<std::uint32_t> held(frames, kNone);
  std::vector<bool> bit(frames, false);
  std::vector<std::uint32_t> frame_of(trace.distinct_blocks, kNone);
  std::size_t used = 0, hand = 0;
  for (std::size_t t = 0; t < trace.refs.size(); ++t) {
    std::uint32_t id = trace.refs[t].id;
    if (frame_of[id] != kNone) {
      hit[t] = true;
      bit[frame_of[id]] = true;
      continue;
    }
    std::size_t f = used;
    if (used < frames) {
      ++used;
    } else {
      // Second chance: a set bit buys one more sweep of the hand.
      while (bit[hand]) bit[hand] = false, hand = (hand + 1) % frames;
      f = hand;
      frame_of[held[f]] = kNone;
      hand = (hand + 1) % frames;
    }
    held[f] = id, bit[f] = true, frame_of[id] = static_cast<std::uint32_t>(f);
  }
  return hit;
}

// [Johnson & Shasha 1994 §2.1, Fig. 2] full 2Q: blocks seen once wait in A1in (FIFO); only a
// block referenced again after leaving it (remembered in A1out) earns a place in Am (LRU), so a
// scan passes through A1in without flushing Am.
std::vector<bool> run_2q(const BlockTrace& trace, std::uint64_t blocks, const CachePolicyOptions& o) {
  std::vector<bool> hit(trace.refs.size(), false);
  const auto kin = static_cast<std::size_t>(std::llround(o.two_q_kin * static_cast<double>(blocks)));
  const auto kout = static_cast<std::size_t>(std::llround(o.two_q_kout * static_cast<double>(blocks)));
  IdList am(trace.distinct_blocks), a1in(trace.distinct_blocks), a1out(trace.distinct_blocks);
  auto reclaim = [&] {
    if (am.size() + a1in.size() < blocks) return;
    if (a1in.size() > kin || am.empty()) {
      a1out.push_front(a1in.pop_back());
      if (a1out.size() > kout) a1out.pop_back();
    } else {
      am.pop_back();  // not remembered in A1out: it has had its chance in Am
    }
  };
  for (std::size_t t = 0; t < trace.refs.size(); ++t) {
    std::uint32_t id = trace.refs[t].id;
    if (am.contains(id)) {
      hit[t] = true;
      am.remove(id), am.push_front(id);
    } else if (a1in.contains(id)) {
      hit[t] = true;  // a correlated re-reference: left where it is
    } else if (blocks == 0) {
      continue;
    } else if (a1out.contains(id)) {
      a1out.remove(id);
      reclaim();
      am.push_front(id);
    } else {
      reclaim();
      a1in.push_front(id);
    }
  }
  return hit;
}

CacheCounts tally(const BlockTrace& trace, const std::vector<bool>& hit) {
  CacheCounts c;
  for (std::size_t t = 0; t < trace.refs.size(); ++t) {
    bool read = !trace.refs[t].write;
    ++c.references, c.hits += hit[t];
    c.read_references += read, c.read_hits += read && hit[t];
  }
  return c;
}

}  // namespace

BlockTrace block_trace(const std::vector<IoOp>& ops, std::uint64_t block_size) {
  if (block_size == 0) throw InputError("cache block size must be at least 1 byte");
  BlockTrace trace;
  trace.block_size = block_size;
  // Generators interleave their lines; the cache sees the operations in the order they started.
  std::vector<std::size_t> order(ops.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ops[a].start_s < ops[b].start_s; });
  std::unordered_map<std::string, std::unordered_map<std::uint64_t, std::uint32_t>> ids;
  for (std::size_t i : order) {
    const IoOp& op = ops[i];
    if (op.kind == IoKind::kMeta || op.size == 0) continue;
    if (op.size > std::numeric_limits<std::uint64_t>::max() - op.offset)
      throw InputError(
          fmt::format("I/O trace: offset {} + size {} of {} overflows", op.offset, op.size, op.file));
    auto& of_file = ids[op.file];
    for (std::uint64_t b = op.offset / block_size; b <= (op.offset + op.size - 1) / block_size; ++b) {
      auto [it, fresh] = of_file.try_emplace(b, trace.distinct_blocks);
      if (fresh && trace.distinct_blocks++ == kNone)  // kNone is no block's id
        throw InputError("I/O trace: 2^32 - 1 distinct blocks or more; use a larger block size");
      trace.refs.push_back(BlockRef{it->second, b, i, op.kind == IoKind::kWrite});
    }
  }
  return trace;
}

CacheCounts HitCurve::at(std::uint64_t blocks) const {
  std::size_t c = static_cast<std::size_t>(std::min<std::uint64_t>(blocks, hits.size() - 1));
  return CacheCounts{references, hits[c], read_references, read_hits[c]};
}

// [Mattson et al. 1970] LRU is a stack algorithm: a reference hits in every cache larger than its
// stack distance (the number of distinct blocks referenced since the block's last reference,
// itself included), so one histogram of distances gives the hits of every size.
HitCurve lru_hit_curve(const BlockTrace& trace) {
  const std::size_t n = trace.refs.size();
  HitCurve curve;
  curve.hits.assign(trace.distinct_blocks + std::size_t{1}, 0);
  curve.read_hits.assign(trace.distinct_blocks + std::size_t{1}, 0);
  std::vector<std::size_t> last(trace.distinct_blocks, n);  // n: not referenced yet
  Fenwick marks(n);
  for (std::size_t t = 0; t < n; ++t) {
    const BlockRef& r = trace.refs[t];
    ++curve.references, curve.read_references += !r.write;
    if (std::size_t p = last[r.id]; p != n) {
      auto distance = static_cast<std::size_t>(marks.prefix(t) - marks.prefix(p + 1)) + 1;
      ++curve.hits[distance];
      curve.read_hits[distance] += !r.write;
      marks.add(p, -1);
    }
    marks.add(t, +1);
    last[r.id] = t;
  }
  // From "hits at distance d" to "hits of a c-block cache" (distance <= c).
  std::partial_sum(curve.hits.begin(), curve.hits.end(), curve.hits.begin());
  std::partial_sum(curve.read_hits.begin(), curve.read_hits.end(), curve.read_hits.begin());
  return curve;
}

const std::vector<std::string>& cache_policies() {
  static const std::vector<std::string> kNames = {"lru", "clock", "2q"};
  return kNames;
}

CacheRun simulate_cache(const BlockTrace& trace, std::uint64_t blocks, const std::string& policy,
                        const CachePolicyOptions& options) {
  CacheRun run;
  if (policy == "lru") {
    run.hit = run_lru(trace, blocks);
  } else if (policy == "clock") {
    run.hit = run_clock(trace, blocks);
  } else if (policy == "2q") {
    for (double f : {options.two_q_kin, options.two_q_kout})
      if (!(f >= 0 && f <= 1)) throw InputError(fmt::format("2Q queue fraction {} is not in [0, 1]", f));
    run.hit = run_2q(trace, blocks, options);
  } else {
    throw InputError(
        fmt::format("unknown cache policy '{}' (known: {})", policy, fmt::join(cache_policies(), ", ")));
  }
  run.counts = tally(trace, run.hit);
  return run;
}

std::vector<IoOp> miss_stream(const std::vector<IoOp>& ops, const BlockTrace& trace, const CacheRun& run) {
  if (run.hit.size() != trace.refs.size())
    throw Error(
        fmt::format("miss stream: {} hit flags for {} block references", run.hit.size(), trace.refs.size()));
  std::vector<IoOp> out;
  bool open = false;  // whether out.back() is a run that the next block may extend
  std::size_t last_op = 0;
  std::uint64_t last_block = 0;
  for (std::size_t t = 0; t < trace.refs.size(); ++t) {
    const BlockRef& r = trace.refs[t];
    if (r.op >= ops.size())
      throw Error(fmt::format("miss stream: reference to op {} of {}", r.op, ops.size()));
    if (!r.write && run.hit[t]) {  // a read hit: nothing reaches the disk, and it breaks the run
      open = false;
      continue;
    }
    if (open && r.op == last_op && r.block == last_block + 1) {
      out.back().size += trace.block_size;
    } else {
      const IoOp& op = ops[r.op];
      out.push_back(IoOp{op.kind, op.file, r.block * trace.block_size, trace.block_size, op.start_s, 0});
    }
    open = true, last_op = r.op, last_block = r.block;
  }
  return out;
}

}  // namespace wb
