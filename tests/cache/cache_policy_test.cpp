// CLOCK and 2Q [Johnson & Shasha 1994] on small traces worked by hand, 2Q's scan resistance
// against LRU, and the policy names.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "models/cache_sim.hpp"

using namespace wb;

namespace {

// One 1-byte op per letter, block size 1: letter X is block X - 'A' of file "f".
BlockTrace letters(const std::string& text) {
  std::vector<IoOp> ops;
  for (char c : text)
    ops.push_back(
        IoOp{IoKind::kRead, "f", static_cast<std::uint64_t>(c - 'A'), 1, static_cast<double>(ops.size()), 0});
  return block_trace(ops, 1);
}

// "h" at each hit, "." at each miss.
std::string hit_pattern(const CacheRun& run) {
  std::string s;
  for (bool h : run.hit) s += h ? 'h' : '.';
  return s;
}

}  // namespace

TEST_CASE("CLOCK on a hand-worked trace of 3 frames") {
  // Frames shown as block(bit), > at the hand; every reference, the loading one too, sets the bit.
  //  1-3 A B C   miss, miss, miss     >A(1) B(1) C(1)
  //  4   A       hit                  >A(1) B(1) C(1)
  //  5   D       miss: clears A B C, replaces A     D(1) >B(0) C(0)
  //  6   B       hit                  D(1) >B(1) C(0)
  //  7   E       miss: clears B, replaces C         >D(1) B(0) E(1)
  //  8   A       miss: clears D, replaces B         D(0) A(1) >E(1)
  //  9   D       hit                  D(1) A(1) >E(1)
  // 10   B       miss: clears E D A, replaces E     >D(0) A(0) B(1)
  // 11   E       miss: replaces D                   E(1) >A(0) B(1)
  // 12   A       hit
  BlockTrace trace = letters("ABCADBEADBEA");
  CacheRun clock = simulate_cache(trace, 3, "clock");
  CHECK(hit_pattern(clock) == "...h.h..h..h");
  CHECK(clock.counts.hits == 4);
  CHECK(clock.counts.read_hits == 4);
  // LRU of 3 blocks on the same trace hits only at 4: from 5 on, each block is 4 distinct
  // blocks back in the stack.
  CHECK(hit_pattern(simulate_cache(trace, 3, "lru")) == "...h........");
  // With room for every block, CLOCK misses only the first reference of each.
  CHECK(simulate_cache(trace, 5, "clock").counts.hits == 12 - 5);
  CHECK(simulate_cache(trace, 0, "clock").counts.hits == 0);
}

TEST_CASE("2Q on a hand-worked trace of 4 blocks (Kin 1, Kout 2)") {
  // Queues front (newest) first; free slots are used while |Am| + |A1in| < 4.
  //  1-2 A B     miss           A1in [B A]
  //  3   A       hit (A1in: stays)
  //  4-5 C D     miss           A1in [D C B A]
  //  6   E       miss, full, |A1in| 4 > Kin: A to A1out     A1in [E D C B]  A1out [A]
  //  7   A       miss (ghost): B to A1out, A to Am          A1in [E D C]  A1out [B]  Am [A]
  //  8   F       miss: C to A1out                           A1in [F E D]  A1out [C B]
  //  9   B       miss (ghost): D to A1out, B to Am          A1in [F E]  A1out [D C]  Am [B A]
  // 10   A       hit (Am)                                   Am [A B]
  // 11   G       miss: E to A1out, which drops C (Kout 2)   A1in [G F]  A1out [E D]
  // 12   C       miss (forgotten): F to A1out, drops D      A1in [C G]  A1out [F E]
  // 13   E       miss (ghost): G to A1out, E to Am          A1in [C]  A1out [G F]  Am [E A B]
  // 14   H       miss, |A1in| 1 = Kin: Am's LRU B evicted   A1in [H C]  Am [E A]
  // 15   B       miss (forgotten): C to A1out, drops F      A1in [B H]  A1out [C G]
  // 16-18 A H E  hit (Am), hit (A1in), hit (Am)
  BlockTrace trace = letters("ABACDEAFBAGCEHBAHE");
  CacheRun q = simulate_cache(trace, 4, "2q");
  CHECK(hit_pattern(q) == "..h......h.....hhh");
  CHECK(q.counts.hits == 5);
  // Kin and Kout are fractions of the size: 0.25 and 0.5 of 4 blocks are the 1 and 2 above.
  CachePolicyOptions explicit_queues{0.25, 0.5};
  CHECK(hit_pattern(simulate_cache(trace, 4, "2q", explicit_queues)) == hit_pattern(q));
  // Without a ghost queue, no block reaches Am and A1in is a FIFO of the whole cache.
  CachePolicyOptions no_ghosts{0.25, 0.0};
  CHECK(hit_pattern(simulate_cache(trace, 4, "2q", no_ghosts)) == "..h......h......hh");
  CHECK_THROWS_AS(simulate_cache(trace, 4, "2q", CachePolicyOptions{1.5, 0.5}), InputError);
}

TEST_CASE("2Q keeps a hot set that a scan flushes out of LRU") {
  // Each step references one of 40 hot blocks, then two blocks of a scan never seen again,
  // through a 100-block cache. A hot block comes back after 40 steps on average, 80 scan blocks
  // later: LRU has often evicted it. In 2Q the scan passes through A1in and A1out, and a hot
  // block seen again while remembered in A1out moves to Am, where the scan cannot reach it.
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<std::uint64_t> hot(0, 39);
  std::vector<IoOp> ops;
  std::uint64_t cold = 0;
  const int steps = 6000;
  for (int i = 0; i < steps; ++i) {
    ops.push_back(IoOp{IoKind::kRead, "hot", hot(rng) * 4096, 4096, static_cast<double>(ops.size()), 0});
    for (int s = 0; s < 2; ++s)
      ops.push_back(IoOp{IoKind::kRead, "scan", cold++ * 4096, 4096, static_cast<double>(ops.size()), 0});
  }
  BlockTrace trace = block_trace(ops);
  const double lru = static_cast<double>(simulate_cache(trace, 100, "lru").counts.hits) / steps;
  const double q = static_cast<double>(simulate_cache(trace, 100, "2q").counts.hits) / steps;
  const double clock = static_cast<double>(simulate_cache(trace, 100, "clock").counts.hits) / steps;
  INFO("hot-reference hit ratios: LRU " << lru << ", 2Q " << q << ", CLOCK " << clock);
  // No policy can hit a scanned block, so hits per step are hits per hot reference.
  CHECK(q > 0.95);
  CHECK(lru < 0.75);
  CHECK(clock < 0.75);
  CHECK(q > lru + 0.25);
}

TEST_CASE("an unknown cache policy names the known ones") {
  BlockTrace trace = letters("AB");
  CHECK_THROWS_WITH(simulate_cache(trace, 2, "arc"), "unknown cache policy 'arc' (known: lru, clock, 2q)");
  CHECK(cache_policies() == std::vector<std::string>{"lru", "clock", "2q"});
}
