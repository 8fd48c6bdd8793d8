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
// Threads: all members are thread-safe. After stop(), acquire() returns std::nullopt at once and
// wakes every waiter with std::nullopt.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace wb::sut {

class DiskPool {
 public:
  explicit DiskPool(int disks);
  DiskPool(const DiskPool&) = delete;
  DiskPool& operator=(const DiskPool&) = delete;

  // Blocks until a disk is this caller's; returns its index, or nullopt once stopped.
  std::optional<int> acquire();
  // Gives back a disk acquire() returned.
  void release(int index);
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
  std::deque<int> free_;          // guarded by mu_: idle disks, longest idle first
  std::deque<Waiter*> waiters_;   // guarded by mu_: FIFO; each points into a waiting caller's frame
  bool stopped_ = false;          // guarded by mu_
};

}  // namespace wb::sut
