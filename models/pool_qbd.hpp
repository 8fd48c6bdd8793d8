#pragma once
// A thread pool and the stations within it, solved exactly as a quasi-birth-death process [Latouche &
// Ramaswami 1999], where the flow-equivalent server is approximate (docs/decisions.md#pool-qbd).
// Stations are visited in order with Bernoulli or geometric counts, service taken as exponential; a
// request that visits no inner station never takes a token. Returns nullopt above `max_phases`
// (C(N_P + K − 1, K − 1) grows fast). Pure; throws wb::Error for invalid input.
#include <optional>
#include <vector>

#include "models/pool_model.hpp"

namespace wb {

struct PoolStation {
  double service = 0;  // mean service time per visit, ms (> 0)
  int servers = 1;     // >= 1; 0 = a delay station (no queueing)
  double visits = 1;   // mean visits per request (> 0)
};

// Steady state at arrival rate λ (per ms, all requests, including any that skip the pool); times per
// request in ms; unstable rates give PoolModel::at's saturated state. Results are memoized on every
// argument (docs/decisions.md#pool-qbd); thread-safe, solves run outside the memo's mutex.
std::optional<PoolModel::State> solve_pool_qbd(int tokens, const std::vector<PoolStation>& stations,
                                               double arrival_rate, std::size_t max_phases = 160);

// The memo's counters since the process started, for tests and diagnostics.
struct PoolQbdMemoStats {
  std::size_t hits = 0, misses = 0;  // calls answered from the memo, and solved
  std::size_t entries = 0, capacity = 0;
};
PoolQbdMemoStats pool_qbd_memo_stats();

}  // namespace wb
