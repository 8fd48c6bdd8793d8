#pragma once
// Per-stage timing of refserver: what the stats request (rpc::Op::kStats) returns.
//
// Every served request passes through these stages. The first five are emulated-resource time
// (see sut/request_service.hpp: stage boundaries are deadlines the worker sleeps until, so they
// do not include the host's scheduling delays); "lag" and "residence" are real time:
//   thread_queue  arrival (whole frame read) -> a worker starts serving it; includes --stall time
//   lock          waiting for the --serialize-above global lock (0 when the fault is off)
//   cpu           the CPU service (spin mode: real wall time, including waits for a core)
//   disk_queue    waiting FIFO for a free disk (read/write only)
//   disk          the disk's service (read/write only)
//   lag           how late the worker woke after the emulated end of its work (host load)
//   residence     arrival -> response handed to the connection, real time
//                 (= the five emulated stages + lag, up to clock-read skew)
// noop and stats requests are answered on the io thread without any stage; they are counted only.
//
// Stats JSON (one object; times in ms; "mean_ms" is total_ms / count of that op kind):
// {
//   "server": "refserver", "version": "0.1.0",
//   "uptime_s": 12.5, "interval_s": 3.2,            // interval_s: since start or last reset
//   "config": {"threads", "disks", "io_threads", "cpu_mode", "cpu_ms", "cpu_dist", "cpu_cv",
//              "disk_ms", "disk_dist", "disk_cv", "seq_factor", "seed",
//              "slow_disks": [{"index", "factor"}], "serialize_above", "create_cost_ms",
//              "stall_every_s", "stall_for_s"},
//   "ops": {"noop"|"read"|"write"|"metadata": {"count": n,
//            "stages": {"thread_queue"|"lock"|"cpu"|"disk_queue"|"disk"|"residence":
//                       {"total_ms", "mean_ms", "max_ms"}}}},   // also "lag"
//   "disks": [{"index": 0, "ops": n, "busy_ms": x, "mean_service_ms": x, "utilization": u}],
//   "bad_requests": n, "stats_requests": n, "files_created": n,   // files_created is never reset
//   "now": {"thread_queue_length": n, "busy_threads": n, "disk_queue_length": n}
// }
// utilization = busy_ms / (interval_s * 1000) for each disk.
// A stats request with flags bit 1 (kFlagStatsReset) returns the snapshot and then zeroes every
// counter and total (not files_created) and restarts the interval.
//
// Threads: every member is safe to call from any thread (one mutex guards all counters).
#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rpc_protocol.hpp"

namespace wb::sut {

// Stats request flag: reset after answering. Bit 0 stays "sequential" for data ops.
constexpr std::uint8_t kFlagStatsReset = 2;

enum Stage : int { kThreadQueue = 0, kLock, kCpu, kDiskQueue, kDisk, kLag, kResidence, kStageCount };
const char* stage_name(int stage) noexcept;

// Stage durations of one request, seconds.
struct RequestTimes {
  std::array<double, kStageCount> s{};
};

class StageStats {
 public:
  using Clock = std::chrono::steady_clock;
  explicit StageStats(int disks);

  void record(rpc::Op op, const RequestTimes& t);
  void record_disk(int index, double service_s);
  void count_noop();
  void count_bad_request();
  void count_stats_request();

  // The stats object above without "config", "files_created" and "now", which the caller adds.
  nlohmann::json snapshot() const;
  void reset();

 private:
  struct StageTotal {
    double total = 0;
    double max = 0;
  };
  struct OpTotals {
    std::uint64_t count = 0;
    std::array<StageTotal, kStageCount> stages{};
  };
  struct DiskTotals {
    std::uint64_t ops = 0;
    double busy = 0;
  };

  const Clock::time_point start_ = Clock::now();
  mutable std::mutex mu_;
  Clock::time_point interval_start_ = start_;  // guarded by mu_
  std::array<OpTotals, 4> ops_{};              // guarded by mu_; indexed by rpc::Op (kNoop..kMetadata)
  std::vector<DiskTotals> disks_;              // guarded by mu_
  std::uint64_t bad_requests_ = 0;             // guarded by mu_
  std::uint64_t stats_requests_ = 0;           // guarded by mu_
};

}  // namespace wb::sut
