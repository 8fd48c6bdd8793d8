#pragma once
// Mean value analysis of a single-class closed product-form network [Reiser & Lavenberg 1980; Jain
// 1991, Ch. 34]: exact for single-server and delay centers; c > 1 servers by Seidmann's approximation
// (docs/decisions.md#seidmann). Pure; throws wb::Error for an invalid model or population < 0.
#include <vector>

#include "models/closed_model.hpp"

namespace wb {

// Exact MVA recursion for every population n = 1..N; element n-1 holds population n.
std::vector<ClosedResult> mva_exact_all(const std::vector<ClosedCenter>& centers, int population,
                                        double think_time);
// Exact MVA at population N only (N = 0 gives the empty network).
ClosedResult mva_exact(const std::vector<ClosedCenter>& centers, int population, double think_time);

struct SchweitzerOptions {
  // Stop when no queue length moves by more than tolerance·N in one update.
  double tolerance = 1e-10;
  int max_iterations = 100000;
  // Starting queue lengths of the queueing centers, in order (delay centers and centers with
  // c >= N servers skipped); empty: N spread evenly over the queueing centers, as [Jain 1991,
  // §34.3] starts.
  std::vector<double> initial_queue;
};

// Schweitzer's approximate MVA [Schweitzer 1979; Jain 1991, §34.3]: Q_k(N−1) ≈ (N−1)/N·Q_k(N) iterated
// to a fixed point, so large N costs as little as small N (docs/decisions.md#seidmann). The result
// reports iterations and whether it converged.
ClosedResult mva_schweitzer(const std::vector<ClosedCenter>& centers, int population, double think_time,
                            const SchweitzerOptions& options = {});

}  // namespace wb
