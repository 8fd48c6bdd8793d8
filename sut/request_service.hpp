#pragma once
// RequestService: what a worker thread does with one request, stage by stage, and the fault flags that
// bend it. [003 §2.1, Fig. 2]: threads (held through CPU, disk queue and disk) and D FCFS disks limit
// the peak. Stage boundaries are absolute deadlines on the emulated timeline, so a late wake-up delays
// the response ("lag") but not the next stage (docs/decisions.md#emulated-time).
// serve(job, thread_free_at), on a worker thread, in this order (v = emulated time):
//  1. start: v0 = max(job.arrival, thread_free_at) — the thread queue wait is v0 - arrival.
//     stall: with --stall-every E --stall-for F, no request starts in the windows
//     [k*E, k*E + F) seconds after start (k = 1, 2, ...); one that would is moved to the window's
//     end. Requests in service finish; queued ones wait (counted as thread_queue time).
//  2. lock: with --serialize-above M, a request that starts while more than M workers are busy
//     (itself included) holds one global mutex for its whole service (CPU and disk), so work
//     above M threads is serialized. Time waiting for it is the "lock" stage.
//  3. cpu: draw a CPU time from --cpu-ms/--cpu-dist; a write additionally pays
//     --create-cost-ms * (files created before it) / 1000 ms, because every write creates a file.
//     sleep mode sleeps until v + that time (no core needed). spin mode burns that much of this
//     thread's CPU time (CLOCK_THREAD_CPUTIME_ID) starting now, so with more busy threads than
//     cores the stage's wall time grows; its emulated end is the real end.
//  4. read/write only, with --cache-mb: the op's blocks (file, offset, size) go through the cache
//     (sut/block_cache.hpp); a read that hits on every block ends here, without a disk stage.
//     read/write only: wait FIFO for a disk (DiskPool); the disk starts at max(v, disk free_at)
//     and serves for a time drawn from --disk-ms/--disk-dist, times --seq-factor if the request
//     has kFlagSequential, times the disk's --slow-disk factor. metadata has no disk stage.
//  5. record the stage times (StageStats; "residence" and "lag" are real times) and call
//     job.done(kOk) on this worker thread.
// Service times come from a SplitMix64 stream seeded by (seed, job.seq): CPU first, then disk.
// Threads: serve() runs concurrently on many workers; other members are thread-safe. After the
// StopFlag is set, serve() returns early without calling job.done.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

#include "core/rpc_protocol.hpp"
#include "sut/block_cache.hpp"
#include "sut/disk_pool.hpp"
#include "sut/server_options.hpp"
#include "sut/stage_stats.hpp"
#include "sut/stop_flag.hpp"

namespace wb::sut {

struct Job {
  rpc::Request request;
  std::chrono::steady_clock::time_point arrival;
  std::uint64_t seq = 0;  // arrival number, selects the service-time stream
  // Called once, on the worker thread, when the request is done. Must not block.
  std::function<void(const rpc::Request&, rpc::Status)> done;
};

class RequestService {
 public:
  using Clock = std::chrono::steady_clock;
  // All references must outlive this object.
  // `cache` may be null (no --cache-mb).
  RequestService(const ServerOptions& options, std::uint64_t seed, StageStats& stats, DiskPool& disks,
                 BlockCache* cache, StopFlag& stop);

  // Serves `job` on a thread that became free at `thread_free_at` (emulated time); returns when
  // the thread is free again (emulated time), to be passed with its next job.
  Clock::time_point serve(Job& job, Clock::time_point thread_free_at);

  int busy_threads() const noexcept { return busy_.load(); }
  std::uint64_t files_created() const noexcept { return files_.load(); }

 private:
  Clock::time_point after_stall(Clock::time_point v) const;
  Clock::time_point spend_cpu(Clock::time_point v, double ms);

  const ServerOptions& options_;
  const std::uint64_t seed_;
  StageStats& stats_;
  DiskPool& disks_;
  BlockCache* cache_;
  StopFlag& stop_;
  const Clock::time_point start_ = Clock::now();
  std::mutex serialize_mu_;           // the --serialize-above global lock
  Clock::time_point lock_free_at_{};  // guarded by serialize_mu_: emulated end of the last holder
  std::atomic<int> busy_{0};
  std::atomic<std::uint64_t> files_{0};
};

}  // namespace wb::sut
