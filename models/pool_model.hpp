#pragma once
// A thread pool of N_P tokens held while a request visits the centers inside it (simultaneous
// possession [003 Fig. 2]), fed by Poisson arrivals at λ, as a flow-equivalent server with a
// holding-time variability correction; method and accuracy: docs/decisions.md#pool-fes. The capacity
// X(N_P) always comes from here, the state from models/pool_qbd.hpp where that is small enough.
// Units: ms and per ms. Immutable, so safe to share between threads. Construction throws wb::Error for
// an invalid inner model or tokens < 1.
#include <vector>

#include "models/closed_model.hpp"
#include "models/convolution.hpp"

namespace wb {

class PoolModel {
 public:
  // `inner`: the centers within the pool, each with its demand per request (visits × per-visit).
  // `holding_scv`: squared coefficient of variation of the contention-free holding time H0 (the
  // sum of the inner service times of one request); 1 leaves the flow-equivalent server as is.
  PoolModel(int tokens, std::vector<ClosedCenter> inner, double holding_scv = 1);

  int tokens() const { return tokens_; }
  // X(N_P): the largest arrival rate the pool sustains, per ms; past M tokens a lower bound
  // (docs/decisions.md#pool-many-tokens).
  double capacity() const { return capacity_; }
  // X(n), n = 0..min(N_P, M), per ms.
  const std::vector<double>& throughput_curve() const { return curve_.throughput; }
  // κ = X(N_P)·E[H0]/N_P in (0, 1]: 1 when the inner centers never make requests wait.
  double contention_free_share() const;

  struct State {
    bool stable = false;
    double token_wait = 0;          // mean time waiting for a token, ms (+inf if unstable)
    double tokens_busy = 0;         // mean tokens held
    std::vector<double> residence;  // per inner center: mean time there per request, ms
    std::vector<double> queue;      // per inner center: mean requests there
  };
  // Steady state at arrival rate λ (per ms). When λ >= capacity the pool saturates: tokens_busy =
  // N_P, token_wait = +inf, and the inner centers show their state at population N_P.
  State at(double arrival_rate) const;

 private:
  State all_delays_at(double arrival_rate) const;

  int tokens_;
  std::vector<ClosedCenter> inner_;
  double holding_scv_;
  PopulationCurve curve_;  // populations 0..min(N_P, M)
  double capacity_ = 0;
  bool all_delays_ = false;  // no inner center queues
};

// M: the largest population the flow-equivalent server of `inner_centers` centers is solved for
// exactly (the convolution's cost K²·M² stays near 4e6).
int pool_curve_limit(std::size_t inner_centers);

}  // namespace wb
