#pragma once
// Analytic capacity of refserver: the saturation bound lambda_max, requests/s, by the utilization law
// per resource a request holds [001 eq. 1, 000 eq. 3]: min(N/(c + p·s), D/(p·s), spin mode: K/c).
// Header-only, no dependencies. An upper bound: no queueing waits, overheads or fault flags
// (docs/decisions.md#refserver-capacity).
// Inputs are means over the mix of read, write and metadata requests (noop and stats bypass the
// workers): N = threads, D = disks, c = cpu_ms per request, p = disk_fraction (share that touches a
// disk), s = disk_ms per disk operation with the sequential share q folded in (disk_ms·(1 − q +
// q·seq_factor)), K = cores (spin mode only).
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
