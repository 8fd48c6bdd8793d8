#pragma once
// DiskPool: D emulated disks behind one FIFO queue.
//
// A worker that needs a disk calls acquire(): if a disk is free and nobody waits, it gets one at
// once; otherwise it waits in arrival order, and each release() hands the freed disk to the
// oldest waiter. So the disks form one multi-server FCFS station (an M/G/D queue when arrivals
// are Poisson), each disk serving one operation at a time. When several disks are free the one
// idle longest is taken, which spreads work evenly (and makes a --slow-disk get its share).
// The pool only does the queueing; the caller sleeps the service time while it holds the disk.
//
// Device time: each disk remembers when its last operation ended on the device's own timeline
// (`free_at`, set by release()). The next operation on it starts at max(ready, free_at), not at
// the moment the releasing thread happened to be scheduled again, so a late wake-up of a worker on
// a loaded host does not stretch the disk's schedule (a real disk does not wait for the CPU to
// notice its completion either).
//
// Threads: all members are thread-safe. After stop(), acquire() returns std::nullopt at once and
// wakes every waiter with std::nullopt.
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
