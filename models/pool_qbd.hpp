#pragma once
// A thread pool and the stations within it, solved exactly as a quasi-birth-death (QBD) process
// [Latouche & Ramaswami, Introduction to Matrix Analytic Methods, 1999]: the level is the number of
// requests holding or waiting for a token, the phase the number at each inner station. Exact for
// Poisson arrivals and exponential inner stations with Markov routing, where the flow-equivalent
// server (models/pool_model.hpp) is only approximate — it misses that requests queue for tokens
// precisely when the inner stations are in slow states, and underestimates the token wait by
// up to ~20% when tokens and inner servers are both scarce.
//
// Routing, as the simulated testbed draws it: stations are visited in order; a station with mean
// visits v <= 1 is visited with probability v, one with v > 1 always and then revisited with
// probability 1 − 1/v (geometric count, mean v; same means, more variance than whole counts).
// Non-exponential service is treated as exponential with the same mean. A request that visits no
// inner station never takes a token.
//
// Cost grows with the phases C(N_P + K − 1, K − 1) (K inner stations): solve_pool_qbd() declines
// (returns nullopt) above `max_phases`, and the caller falls back to the flow-equivalent server.
// Pure function; throws wb::Error for invalid input.
#include <optional>
#include <vector>

#include "models/pool_model.hpp"

namespace wb {

struct PoolStation {
  double service = 0;  // mean service time per visit, ms (> 0)
  int servers = 1;     // >= 1; 0 = a delay station (no queueing)
  double visits = 1;   // mean visits per request (> 0)
};

// Steady state at arrival rate λ (per ms, all requests, including any that skip the pool).
// Times per request (averaged over all requests), in ms. Unstable rates give the saturated state
// of PoolModel::at (the caller checks capacity first).
//
// Memo: a solve costs ~25 ms at 100 tokens (-O2; ~10x that under the sanitizers), and the same
// sample's model is solved again and again in one process (seeding, Z-CART attributes, the
// stored expectation, probe checks, whatif) along the same sequence of rates. So the last 4096
// solutions are kept, keyed on the exact arguments (tokens, stations, λ, max_phases: everything the
// result depends on), and a repeated call returns the stored state, the same to the bit.
// Thread-safe: concurrent callers share the memo (a mutex guards it; solves run outside it).
std::optional<PoolModel::State> solve_pool_qbd(int tokens, const std::vector<PoolStation>& stations,
                                               double arrival_rate, std::size_t max_phases = 160);

// The memo's counters since the process started, for tests and diagnostics.
struct PoolQbdMemoStats {
  std::size_t hits = 0, misses = 0;  // calls answered from the memo, and solved
  std::size_t entries = 0, capacity = 0;
};
PoolQbdMemoStats pool_qbd_memo_stats();

}  // namespace wb
