#pragma once
// The open-loop load engine: offers requests at a target rate λ however fast the server answers, and
// measures each latency from its *intended* send time, so a stalled server shows in the percentiles
// (no coordinated omission).
// Timeline (one shared start time for all threads):
//   [start, start + warmup)                 requests are sent but not counted
//   [start + warmup, start + warmup + D)    the measurement window: requests intended here count
//   after the window                        no new requests; wait until every counted request is
//                                           answered, failed or timed out (at most `timeout`)
// Threads: `threads` workers, each with its own io_context, λ/threads, a share of the connections and
// its own random engine (seed + thread index); constant arrivals interleave the threads' phases,
// Poisson ones superpose to Poisson(λ).
// Connections: each worker opens its share of `connections` before the start; a request due when none
// is free waits in a FIFO and opens one more, up to its share of `max_connections`; one request in
// flight per connection.
// Failure: run_load throws wb::Error when the target cannot be resolved (wb::InputError when the
// trace file cannot be opened); what happens to individual
// requests (refused connections, resets, garbage) is counted in the result.
#include <cstdint>
#include <string>

#include "workloads/codec.hpp"
#include "workloads/mix.hpp"
#include "workloads/result.hpp"

namespace wb {

enum class Arrivals { kConstant, kPoisson };

struct LoadOptions {
  Protocol protocol = Protocol::kRpc;
  Target target;  // kFile: the directory in target.path (file_engine.hpp)
  Mix mix;
  double rate = 0;        // λ, requests/s (> 0)
  double duration_s = 0;  // measurement window (> 0)
  double warmup_s = 0;
  int connections = 16;     // opened before the start, split over threads (kFile: I/O threads)
  int max_connections = 0;  // pool limit; 0 = 4 × connections
  int threads = 1;
  Arrivals arrivals = Arrivals::kConstant;
  double timeout_s = 5;  // per request, from its intended send time
  double late_ms = 1;    // a send starting later than this after its intended time is late
  std::uint64_t seed = 1;
  double interval_s = 0;   // > 0: also report per-interval figures
  std::string trace_path;  // non-empty: write the per-operation trace here (workloads/trace.hpp)
};

LoadResult run_load(const LoadOptions& options);

}  // namespace wb
