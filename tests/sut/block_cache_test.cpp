// refserver's buffer cache on reference strings worked by hand: LRU's loop behaviour, CLOCK's
// second chance, multi-block operations and write allocation.
#include <catch2/catch.hpp>

#include "sut/block_cache.hpp"

using wb::sut::BlockCache;
using wb::sut::CachePolicy;

TEST_CASE("LRU: a loop that fits hits from its second pass, one block more never hits", "[sut][unit]") {
  BlockCache fits(4, 4096, CachePolicy::kLru);
  BlockCache short_by_one(3, 4096, CachePolicy::kLru);
  int hits_fit = 0, hits_short = 0;
  for (int pass = 0; pass < 3; ++pass) {
    for (std::uint64_t b = 0; b < 4; ++b) {
      hits_fit += fits.access(1, b * 4096, 4096, false) ? 1 : 0;
      hits_short += short_by_one.access(1, b * 4096, 4096, false) ? 1 : 0;
    }
  }
  CHECK(hits_fit == 8);
  CHECK(hits_short == 0);
  const nlohmann::json s = fits.stats();
  CHECK(s.at("policy") == "lru");
  CHECK(s.at("reads") == 12);
  CHECK(s.at("read_hits") == 8);
  CHECK(s.at("resident_blocks") == 4);
  fits.reset_counts();
  CHECK(fits.stats().at("reads") == 0);
  CHECK(fits.stats().at("resident_blocks") == 4);  // the contents stay
}

TEST_CASE("LRU keeps the recently used block, CLOCK the referenced one", "[sut][unit]") {
  // Frames a, b; then a again, then c: LRU evicts b; CLOCK (both bits set after loading) clears
  // a's and b's bits and replaces a, the frame under the hand.
  BlockCache lru(2, 1, CachePolicy::kLru);
  BlockCache clock(2, 1, CachePolicy::kClock);
  for (BlockCache* c : {&lru, &clock}) {
    c->access(0, 0, 1, false);  // a
    c->access(0, 1, 1, false);  // b
    c->access(0, 0, 1, false);  // a hits
    c->access(0, 2, 1, false);  // c: a miss that evicts
  }
  CHECK(lru.access(0, 0, 1, false));        // a stayed
  CHECK_FALSE(lru.access(0, 1, 1, false));  // b was evicted
  CHECK(clock.access(0, 1, 1, false));      // b stayed
  CHECK_FALSE(clock.access(0, 0, 1, false));
}

TEST_CASE("an operation hits only if every block it covers does, and writes allocate", "[sut][unit]") {
  BlockCache c(8, 4096, CachePolicy::kLru);
  CHECK_FALSE(c.access(7, 0, 4096, false));
  CHECK_FALSE(c.access(7, 0, 8192, false));  // block 1 was not there
  CHECK(c.access(7, 100, 8000, false));      // blocks 0 and 1, both resident now
  CHECK_FALSE(c.access(8, 0, 4096, false));  // same block number, another file
  c.access(9, 4096, 4096, true);             // a write brings block 1 of file 9 in
  CHECK(c.access(9, 4096, 100, false));
  CHECK(c.access(9, 0, 0, false));  // nothing to read is a hit
  const nlohmann::json s = c.stats();
  CHECK(s.at("writes") == 1);
  CHECK(s.at("reads") == 6);
  CHECK(s.at("read_hits") == 3);
}

TEST_CASE("a cache of no blocks misses everything", "[sut][unit]") {
  BlockCache c(0, 4096, CachePolicy::kClock);
  CHECK_FALSE(c.access(1, 0, 10, false));
  CHECK_FALSE(c.access(1, 0, 10, false));
}
