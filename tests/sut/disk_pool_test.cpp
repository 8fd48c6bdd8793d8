#include "sut/disk_pool.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using wb::sut::DiskPool;

namespace {
using Clock = DiskPool::Clock;
int index_of(const std::optional<DiskPool::Grant>& g) { return g ? g->index : -1; }
}  // namespace

TEST_CASE("DiskPool hands out each disk once and the longest idle first", "[sut][unit]") {
  DiskPool pool(3);
  CHECK(index_of(pool.acquire()) == 0);
  CHECK(index_of(pool.acquire()) == 1);
  pool.release(0, Clock::now());
  CHECK(index_of(pool.acquire()) == 2);
  CHECK(index_of(pool.acquire()) == 0);
  CHECK(pool.queue_length() == 0);
}

TEST_CASE("DiskPool grants a disk with the device time its last operation ended", "[sut][unit]") {
  DiskPool pool(1);
  const auto end = Clock::now() + std::chrono::seconds(3);
  auto g = pool.acquire();
  REQUIRE(g.has_value());
  CHECK(g->free_at <= Clock::now());
  pool.release(g->index, end);
  g = pool.acquire();
  REQUIRE(g.has_value());
  CHECK(g->free_at == end);
}

TEST_CASE("DiskPool serves waiters in arrival order", "[sut][unit]") {
  DiskPool pool(1);
  REQUIRE(index_of(pool.acquire()) == 0);
  std::mutex mu;
  std::vector<int> order;
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&, i] {
      const auto d = pool.acquire();
      {
        std::lock_guard lock(mu);
        order.push_back(d ? i : -1);
      }
      if (d) pool.release(d->index, Clock::now());
    });
    // Let waiter i enqueue before waiter i+1 starts.
    while (pool.queue_length() != i + 1) std::this_thread::yield();
  }
  pool.release(0, Clock::now());
  for (auto& t : waiters) t.join();
  CHECK(order == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("DiskPool::stop wakes every waiter with no disk", "[sut][unit]") {
  DiskPool pool(1);
  REQUIRE(pool.acquire().has_value());
  std::atomic<int> woken{0};
  std::vector<std::thread> waiters;
  waiters.reserve(3);
  for (int i = 0; i < 3; ++i)
    waiters.emplace_back([&] {
      if (!pool.acquire()) ++woken;
    });
  while (pool.queue_length() != 3) std::this_thread::yield();
  pool.stop();
  for (auto& t : waiters) t.join();
  CHECK(woken == 3);
  CHECK(pool.queue_length() == 0);
  CHECK_FALSE(pool.acquire().has_value());
}
