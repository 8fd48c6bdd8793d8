#pragma once
// Closed-workload analysis of the [model] queue network (core/queue_network.hpp) for one sample: N
// clients thinking a mean Z between requests [001 §III-C.2], as `workbench whatif --clients N --think Z`
// asks. Pools become flow-equivalent servers of a load-dependent MVA; method, numerics, exactness and
// the time bound: docs/decisions.md#closed-network. Results per center in declaration order (a pool:
// its token wait); N = X·(response + Z). Units ms and per ms; pure function of (network, sample, N, Z).
// Failure: wb::InputError naming the center, --clients or --think for an impossible server count or
// demand, N < 0, N > 20000 with pools, Z < 0 or not finite, over 10 centers needing complement
// networks, or a network with pools over kClosedWorkBudget steps.
#include "core/queue_network.hpp"
#include "core/sample.hpp"
#include "models/closed_model.hpp"

namespace wb {

// Above this population a network without pools is solved by Schweitzer's approximate MVA.
inline constexpr int kClosedExactLimit = 2000;
// Above this population a network with pools is rejected (no approximate method handles pools).
inline constexpr int kClosedPoolLimit = 20000;
// The most work (network × population × kept probability steps, ~8 ns each) the exact solution
// may take (docs/decisions.md#closed-network-budget).
inline constexpr double kClosedWorkBudget = 5e7;

ClosedResult solve_closed(const QueueNetwork& net, const Sample& sample, int clients, double think_ms);

}  // namespace wb
