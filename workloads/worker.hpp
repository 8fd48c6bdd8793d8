#pragma once
// Worker: one thread of the open-loop engine (engine.hpp has the timeline and counting rules); internal
// to wb_workloads. It owns its io_context, sockets and timers; handlers hold shared_ptrs to their
// connection. Threads: construct, run() and result() on one thread; only the Mix and Codec are shared.
#include <chrono>
#include <memory>

#include "core/asio.hpp"
#include "workloads/engine.hpp"
#include "workloads/trace.hpp"

namespace wb {

struct WorkerPlan {
  int index = 0;        // thread index
  double rate = 0;      // this worker's share of λ
  double phase_s = 0;   // constant arrivals: offset of the first request
  int connections = 1;  // opened before the start
  int max_connections = 1;
  std::chrono::steady_clock::time_point start;  // shared start (beginning of the warm-up)
};

class Worker {
 public:
  Worker(const LoadOptions& options, const Codec& codec, const boost::asio::ip::tcp::endpoint& endpoint,
         const WorkerPlan& plan);
  ~Worker() noexcept;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs the whole timeline; returns when every counted request is resolved.
  void run();
  // This worker's part of the result (offered_rate = its share of λ).
  LoadResult result() const;
  // With LoadOptions::trace_path: its completed counted operations, moved out (after run()).
  std::vector<TraceRecord> take_trace();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wb
