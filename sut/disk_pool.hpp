#pragma once
// DiskPool: D emulated disks behind one FIFO queue, a multi-server FCFS station (M/G/D for Poisson
// arrivals): acquire() gets a free disk at once if nobody waits, else waits in arrival order; the disk
// idle longest is taken (spreading work, so a --slow-disk gets its share). The caller sleeps the
// service while holding the disk. Each disk starts its next operation at max(ready, free_at), the end
// of its last on the device's timeline (docs/decisions.md#emulated-time).
// Threads: all members thread-safe; after stop(), acquire() returns and wakes every waiter with nullopt.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace wb::sut {

class DiskPool {
 public:
  explicit DiskPool(int disks);
  DiskPool(const DiskPool&) = delete;
  DiskPool& operator=(const DiskPool&) = delete;

  using Clock = std::chrono::steady_clock;
  struct Grant {
    int index = 0;
    Clock::time_point free_at;  // when the disk's previous operation ended (device time)
  };
  // Blocks until a disk is this caller's; returns it, or nullopt once stopped.
  std::optional<Grant> acquire();
  // Gives back a disk acquire() returned; `end` is when its operation ended (device time).
  void release(int index, Clock::time_point end);
  void stop();

  int disks() const noexcept { return disks_; }
  // Callers currently waiting in acquire().
  int queue_length() const;

 private:
  struct Waiter {
    std::condition_variable cv;
    int disk = -1;
  };
  const int disks_;
  mutable std::mutex mu_;
  std::vector<Clock::time_point> free_at_;  // guarded by mu_
  std::deque<int> free_;                    // guarded by mu_: idle disks, longest idle first
  std::deque<Waiter*> waiters_;             // guarded by mu_: FIFO; each points into a waiting caller's frame
  bool stopped_ = false;                    // guarded by mu_
};

}  // namespace wb::sut
