#pragma once
// Analytic capacity of refserver: the saturation throughput bound lambda_max, in requests/s,
// from the utilization law applied to each resource a request holds [001 eq. 1, 000 eq. 3].
// Header-only, no dependencies: models, benchmarks and tests use it to know what the server
// should sustain.
//
// Inputs (means over the request mix, which holds read, write and metadata requests only —
// noop and stats requests bypass the workers and are not counted):
//   N = threads, D = disks, c = cpu_ms (mean CPU service per request),
//   p = disk_fraction (share of requests that are read or write, i.e. touch a disk),
//   s = disk_ms (mean disk service per disk operation; the caller folds in the sequential share
//       q: s = disk_ms * (1 - q + q * seq_factor)),
//   K = cores (spin mode only).
//
// Reasoning. In the long run, throughput X times the time a request holds a resource (its demand
// on it) equals that resource's busy servers, which cannot exceed its server count (utilization
// law U = X * Demand <= servers):
//   threads: a request holds its worker for its CPU time, any disk-queue wait and its disk time,
//            so the demand is at least c + p*s:         X <= N / (c + p*s)
//   disks:   demand p*s spread over D disks:          X <= D / (p*s)
//   cores:   spin mode burns c of thread CPU time per request on K cores:  X <= K / c
//            (sleep mode holds no core, so this term does not apply).
// lambda_max = the minimum of these; the resource achieving it is the bottleneck.
//
// What it does NOT include, on purpose: queueing waits (the thread term leaves out disk-queue
// wait, so it is an upper bound that is exact when disks never queue, e.g. N <= D, and when N is
// large enough that the disk term binds); the io thread, network and protocol costs; the
// load generator sharing the cores; sleep/timer overshoot; and every fault flag (slow disk,
// serialize-above, create cost, stalls) — those are exactly what a mismatch test should reveal.
// Closed-loop clients without think time reach lambda_max only with at least N (thread-bound)
// or enough (disk-bound) requests outstanding.
#include <algorithm>
#include <limits>

namespace wb::sut {

struct CapacityInput {
  int threads = 1;             // N
  int disks = 1;               // D
  double cpu_ms = 0;           // c
  double disk_ms = 0;          // s, effective mean per disk operation
  double disk_fraction = 1.0;  // p in [0, 1]
  bool spin = false;           // --cpu-mode spin: the core term applies
  int cores = 1;               // K, used only when spin
};

enum class Bottleneck { kThreads, kDisks, kCores, kNone };

struct CapacityBound {
  double lambda_max = 0;  // requests/s; +infinity when no resource has any demand
  double thread_bound = 0;
  double disk_bound = 0;
  double core_bound = 0;  // +infinity in sleep mode
  Bottleneck bottleneck = Bottleneck::kNone;
};

inline CapacityBound capacity_bound(const CapacityInput& in) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto bound = [&](double servers, double demand_ms) {
    return demand_ms > 0 ? servers / (demand_ms / 1000.0) : kInf;
  };
  CapacityBound b;
  const double disk_demand = in.disk_fraction * in.disk_ms;
  b.thread_bound = bound(in.threads, in.cpu_ms + disk_demand);
  b.disk_bound = bound(in.disks, disk_demand);
  b.core_bound = in.spin ? bound(in.cores, in.cpu_ms) : kInf;
  b.lambda_max = std::min({b.thread_bound, b.disk_bound, b.core_bound});
  if (b.lambda_max == kInf) {
    b.bottleneck = Bottleneck::kNone;
  } else if (b.lambda_max == b.disk_bound) {
    b.bottleneck = Bottleneck::kDisks;
  } else if (b.lambda_max == b.core_bound) {
    b.bottleneck = Bottleneck::kCores;
  } else {
    b.bottleneck = Bottleneck::kThreads;
  }
  return b;
}

}  // namespace wb::sut
