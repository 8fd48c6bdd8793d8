// LRU stack distances [Mattson et al. 1970] against a direct LRU simulation of the same trace at
// every cache size from 0 to beyond the footprint, on traces with known answers (a loop), a Zipf
// workload and a random one of multi-block reads and writes; block references and the miss stream.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "models/cache_sim.hpp"

using namespace wb;

namespace {

constexpr std::uint64_t kBlock = 4096;

IoOp block_read(const std::string& file, std::uint64_t block, double start) {
  return IoOp{IoKind::kRead, file, block * kBlock, kBlock, start, 0};
}

// The stack-distance curve and one LRU simulation per size must agree on every count.
void check_curve_against_lru(const BlockTrace& trace) {
  HitCurve curve = lru_hit_curve(trace);
  REQUIRE(curve.hits.size() == trace.distinct_blocks + std::size_t{1});
  for (std::uint64_t size = 0; size <= trace.distinct_blocks + std::uint64_t{3}; ++size) {
    INFO("cache of " << size << " blocks");
    CacheRun lru = simulate_cache(trace, size, "lru");
    CacheCounts c = curve.at(size);
    CHECK(c.references == lru.counts.references);
    CHECK(c.read_references == lru.counts.read_references);
    CHECK(c.hits == lru.counts.hits);
    CHECK(c.read_hits == lru.counts.read_hits);
  }
  // A cache as large as the footprint misses only the first reference of each block.
  CHECK(curve.at(trace.distinct_blocks).hits == trace.refs.size() - trace.distinct_blocks);
}

}  // namespace

TEST_CASE("a loop larger than the cache: LRU hits nothing below the loop length, all but cold misses at it") {
  const std::uint64_t loop = 100, rounds = 5;
  std::vector<IoOp> ops;
  for (std::uint64_t r = 0; r < rounds; ++r)
    for (std::uint64_t b = 0; b < loop; ++b)
      ops.push_back(block_read("f", b, static_cast<double>(ops.size())));
  BlockTrace trace = block_trace(ops);
  REQUIRE(trace.distinct_blocks == loop);
  REQUIRE(trace.refs.size() == loop * rounds);
  HitCurve curve = lru_hit_curve(trace);
  for (std::uint64_t size = 0; size <= loop + 5; ++size) {
    INFO("cache of " << size << " blocks");
    std::uint64_t expected = size < loop ? 0 : (rounds - 1) * loop;
    CHECK(curve.at(size).hits == expected);
    CHECK(simulate_cache(trace, size, "lru").counts.hits == expected);
  }
  check_curve_against_lru(trace);
}

TEST_CASE("stack distances equal the LRU simulation at every size on a Zipf workload") {
  std::mt19937_64 rng(20240524);
  const int blocks = 400;
  std::vector<double> weights;
  for (int k = 1; k <= blocks; ++k) weights.push_back(1.0 / k);  // Zipf, exponent 1
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  std::vector<IoOp> ops;
  for (int i = 0; i < 8000; ++i) ops.push_back(block_read("z", static_cast<std::uint64_t>(zipf(rng)), i));
  BlockTrace trace = block_trace(ops);
  REQUIRE(trace.distinct_blocks > 300);  // the tail is reached, so large sizes are exercised
  check_curve_against_lru(trace);
  // Zipf's point: a small cache of the hottest blocks holds much of the traffic.
  HitCurve curve = lru_hit_curve(trace);
  CHECK(curve.at(40).hits > trace.refs.size() / 3);
}

TEST_CASE("stack distances equal the LRU simulation at every size on random multi-block reads and writes") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> offset(0, 300 * kBlock), size(1, 3 * kBlock);
  std::uniform_int_distribution<int> file(0, 2), kind(0, 3);
  std::uniform_real_distribution<double> start(0, 100);
  std::vector<IoOp> ops;
  for (int i = 0; i < 3000; ++i) {
    int k = kind(rng);
    ops.push_back(IoOp{k == 0   ? IoKind::kWrite
                       : k == 1 ? IoKind::kMeta
                                : IoKind::kRead,
                       "f" + std::to_string(file(rng)), offset(rng), size(rng), start(rng), 0});
  }
  BlockTrace trace = block_trace(ops);
  REQUIRE(trace.refs.size() > 3000);  // multi-block ops reference several blocks
  check_curve_against_lru(trace);
  CacheCounts all = lru_hit_curve(trace).at(trace.distinct_blocks);
  CHECK(all.read_references < all.references);
  CHECK(all.read_hits < all.hits);
}

TEST_CASE("block references: each block an op covers, ops in start order, meta and empty ops none") {
  std::vector<IoOp> ops = {
      {IoKind::kRead, "a", 4000, 200, 2.0, 0},    // blocks 0 and 1 of a
      {IoKind::kWrite, "b", 8192, 4096, 1.0, 0},  // block 2 of b, replayed first
      {IoKind::kMeta, "a", 0, 4096, 0.5, 0},     {IoKind::kRead, "a", 0, 0, 0.7, 0},
      {IoKind::kRead, "b", 8192, 1, 3.0, 0},  // block 2 of b again
  };
  BlockTrace t = block_trace(ops);
  REQUIRE(t.refs.size() == 4);
  CHECK(t.distinct_blocks == 3);
  CHECK((t.refs[0].op == 1 && t.refs[0].block == 2 && t.refs[0].write && t.refs[0].id == 0));
  CHECK((t.refs[1].op == 0 && t.refs[1].block == 0 && t.refs[1].id == 1));
  CHECK((t.refs[2].op == 0 && t.refs[2].block == 1 && t.refs[2].id == 2));
  CHECK((t.refs[3].op == 4 && t.refs[3].id == 0 && !t.refs[3].write));
  CHECK_THROWS_AS(block_trace(ops, 0), InputError);
}

TEST_CASE("the miss stream: missed read blocks and all written blocks, as runs of consecutive blocks") {
  std::vector<IoOp> ops = {
      {IoKind::kRead, "a", 0, 16384, 0, 0},     // a0-a3 miss: one run
      {IoKind::kRead, "a", 4096, 8192, 1, 0},   // a1, a2 hit: nothing
      {IoKind::kWrite, "a", 8192, 4096, 2, 0},  // a2: a write reaches the disk though cached
      {IoKind::kRead, "a", 12000, 8000, 3, 0},  // a2, a3 hit, a4 misses
      {IoKind::kMeta, "a", 0, 0, 4, 0},         // nothing
      {IoKind::kRead, "b", 0, 100, 0.5, 0},     // b0 misses, replayed second
      {IoKind::kRead, "c", 4096, 4096, 5, 0},   // c1 misses
      {IoKind::kRead, "c", 0, 12288, 6, 0},     // c0 misses, c1 hits, c2 misses: two runs
  };
  BlockTrace trace = block_trace(ops);
  CacheRun run = simulate_cache(trace, 64, "lru");
  std::vector<IoOp> misses = miss_stream(ops, trace, run);
  struct Want {
    IoKind kind;
    std::string file;
    std::uint64_t offset, size;
    double start;
  };
  std::vector<Want> want = {{IoKind::kRead, "a", 0, 16384, 0},    {IoKind::kRead, "b", 0, 4096, 0.5},
                            {IoKind::kWrite, "a", 8192, 4096, 2}, {IoKind::kRead, "a", 16384, 4096, 3},
                            {IoKind::kRead, "c", 4096, 4096, 5},  {IoKind::kRead, "c", 0, 4096, 6},
                            {IoKind::kRead, "c", 8192, 4096, 6}};
  REQUIRE(misses.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("miss " << i);
    CHECK(misses[i].kind == want[i].kind);
    CHECK(misses[i].file == want[i].file);
    CHECK(misses[i].offset == want[i].offset);
    CHECK(misses[i].size == want[i].size);
    CHECK(misses[i].start_s == want[i].start);
  }
  // A cache of 0 blocks sends every block; a mismatched run is refused.
  CacheRun none = simulate_cache(trace, 0, "lru");
  CHECK(none.counts.hits == 0);
  std::uint64_t bytes = 0;
  for (const IoOp& m : miss_stream(ops, trace, none)) bytes += m.size;
  CHECK(bytes == trace.refs.size() * kBlock);
  CHECK_THROWS_AS(miss_stream(ops, BlockTrace{}, run), Error);
}
