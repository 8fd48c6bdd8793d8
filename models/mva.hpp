#pragma once
// Mean value analysis of a single-class closed product-form network [Reiser & Lavenberg 1980;
// Jain 1991, Ch. 34; Lazowska et al., Quantitative System Performance 1984, Ch. 6].
//
// Exact MVA is exact for single-server queueing centers and delay centers. A center with c > 1
// servers is handled by Seidmann's approximation [Seidmann, Schweitzer & Shalev-Oren 1987]: a
// single server of demand D/c in tandem with a delay of D·(c−1)/c. It is exact at N = 1 and in
// the bottleneck limit and pessimistic in between (it queues customers that c real servers would
// serve at once: 15% low in throughput near the knee for 4 servers, see tests/models/mva_test.cpp);
// use solve_convolution() (models/convolution.hpp) for the exact multi-server answer. A center
// with c >= N servers is a delay center, exactly: none of the N customers ever waits.
//
// Pure functions; throw wb::Error for an invalid model (see check_closed_model) or population < 0.
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

// Schweitzer's approximate MVA [Schweitzer 1979; Jain 1991, §34.3]: Q_k(N−1) ≈ (N−1)/N · Q_k(N),
// iterated to a fixed point. No recursion over n, so large N costs the same as small N; typically
// within a few percent of exact MVA, worst near the knee N* (5% in R for Jain's Example 34.2 at
// N = 5). The result reports iterations and whether it converged.
ClosedResult mva_schweitzer(const std::vector<ClosedCenter>& centers, int population, double think_time,
                            const SchweitzerOptions& options = {});

}  // namespace wb
