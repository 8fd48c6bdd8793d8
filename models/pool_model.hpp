#pragma once
// A thread pool of N_P tokens held while a request visits the centers inside it (simultaneous
// possession [003 Fig. 2]: an nfsd thread stays busy while its request queues for a disk), fed by
// an open Poisson stream of rate λ.
//
// Method: a flow-equivalent server (FES) — Norton's theorem for queueing networks [Chandy,
// Herzog & Woo 1975], the decomposition used for memory constraints in [Lazowska et al.,
// Quantitative System Performance 1984, Ch. 9]. The inner centers are solved as a closed network
// for every population n = 1..N_P (Buzen's convolution, exact for multi-server centers), giving
// its throughput X(n). The pool is then a birth-death queue: arrivals at λ, completions at
// X(min(n, N_P)) with n requests holding or waiting for a token. This is the surrogate-delay /
// layered-queueing idea "a pool is an N_P-server station whose service time is the token holding
// time" with the holding time taken as a function of how many tokens are out rather than of λ
// through open-network formulas for the inner queues: no fixed-point iteration is needed, inner
// queues never exceed N_P, and the pool's capacity is X(N_P).
//
// Limits: exact when the pool holds a single (multi-server) station; otherwise an approximation,
// because the inner state given n tokens out is not exactly the closed network's (arrivals and
// departures reshape it) — under 0.1% off the exact Markov chain for a CPU and a disk inside
// (tests/models/pool_model_test.cpp). It assumes Poisson arrivals, product-form inner centers
// (exponential FCFS, any PS, delay) visited while the token is held without interleaving outside
// centers. With non-exponential FCFS service inside the pool (e.g. lognormal disks) the inner
// network is treated as exponential, which underestimates queueing when c_s > 1 and overestimates
// it when c_s < 1, most at high utilization.
//
// Units: demands and times in ms, rates per ms. Immutable after construction; safe to share
// between threads. Construction throws wb::Error for an invalid inner model or tokens < 1.
#include <vector>

#include "models/closed_model.hpp"
#include "models/convolution.hpp"

namespace wb {

class PoolModel {
 public:
  // `inner`: the centers within the pool, each with its demand per request (visits × per-visit).
  PoolModel(int tokens, std::vector<ClosedCenter> inner);

  int tokens() const { return tokens_; }
  // X(N_P): the largest arrival rate the pool sustains, per ms.
  double capacity() const { return curve_.throughput.back(); }
  // X(n), n = 0..N_P, per ms.
  const std::vector<double>& throughput_curve() const { return curve_.throughput; }

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
  int tokens_;
  std::vector<ClosedCenter> inner_;
  PopulationCurve curve_;
};

}  // namespace wb
