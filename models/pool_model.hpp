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
// Holding-time variability: the birth-death chain releases tokens like exponential servers. When
// the tokens, not the inner centers, are what requests wait for, the pool behaves as an M/G/N_P
// queue whose service is the contention-free holding time H0, and its wait scales with H0's
// variability as in the Allen–Cunneen approximation, (1 + c²)/2. When an inner bottleneck paces the
// releases, the birth-death chain is right as it is. This model interpolates between the two with
// κ = X(N_P)·E[H0]/N_P, the share of the contention-free release rate the pool reaches with every
// token out: the token wait is multiplied by 1 + κ·(c²_H0 − 1)/2. (A heuristic of this project: it
// is Allen–Cunneen when κ = 1 and the plain flow-equivalent server when κ → 0.)
//
// Limits: exact when the pool holds a single (multi-server) station and holding_scv = 1; otherwise
// an approximation, because the inner state given n tokens out is not exactly the closed
// network's (requests queue for tokens precisely when the inner stations are in slow states).
// Against the exact Markov chain (tests/models/pool_model_test.cpp): under 0.1% for a CPU and a
// disk every request visits, but the token wait ~20% low at 80% load with 4 tokens, 2 disks and
// 20% of requests skipping the disk — the reason for models/pool_qbd.hpp. It assumes Poisson arrivals,
// product-form inner centers (exponential FCFS, any PS, delay) visited while the token is held without
// interleaving outside centers. With non-exponential FCFS service inside the pool (e.g. lognormal disks) the
// inner network is treated as exponential, which underestimates queueing when c_s > 1 and overestimates it
// when c_s < 1, most at high utilization.
//
// Role: models/open_network uses the exact QBD of models/pool_qbd.hpp where its phase space is
// small and this model otherwise; the pool's capacity X(N_P) always comes from here.
//
// Many tokens: the convolution costs O(K²·N_P²) for K inner centers, so X(n) is computed for
// n <= M = max(100, 2000/K) only (pool_curve_limit). With N_P > M tokens:
//  - inner centers all delays: the pool is exactly an M/M/N_P queue of service time Σ D_k (Erlang C);
//  - else levels n > M complete at X(M), and the inner queues grow past Q_k(M) by the increments
//    Q_k(M) − Q_k(M−1) per request (the share of each extra request the bottleneck takes), the sums
//    over levels in closed form. X(n) rises towards X_up = min_k c_k/D_k, so the capacity is low by
//    at most 1 − X(M)/X_up: nothing once the bottleneck has all its servers busy — a single
//    c-server station from n = c on, configs/sim.toml's pool well within M — and (K−1)/M for K
//    tied single-server bottlenecks; larger where delays inside the pool keep X(M) far from X_up.
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
  // `holding_scv`: squared coefficient of variation of the contention-free holding time H0 (the
  // sum of the inner service times of one request); 1 leaves the flow-equivalent server as is.
  PoolModel(int tokens, std::vector<ClosedCenter> inner, double holding_scv = 1);

  int tokens() const { return tokens_; }
  // X(N_P): the largest arrival rate the pool sustains, per ms (with more than M tokens, see above).
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
