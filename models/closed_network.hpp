#pragma once
// Closed-workload analysis of the [model] queue network (core/queue_network.hpp) for one sample:
// N clients, each thinking for a mean Z between requests [001 §III-C.2] — what `workbench whatif
// --clients N --think Z` answers.
//
// Method: hierarchical decomposition. Each pool becomes a flow-equivalent server (FES) — Norton's
// theorem for queueing networks [Chandy, Herzog & Woo 1975], the decomposition models/pool_model.hpp
// uses for open arrivals, and the one [Lazowska et al., Quantitative System Performance 1984,
// Ch. 8–9] apply to memory constraints: its inner centers are solved as a closed network for
// populations 0..T (population_curve of models/convolution.hpp, exact for multi-server centers),
// and with j requests holding or waiting for one of its T tokens it completes them at
// μ(j) = X_in(min(j, T)). The outer network — the think stage Z, the centers outside pools and one
// FES per pool — is then solved exactly by load-dependent MVA [Reiser & Lavenberg 1980; Lazowska et
// al. 1984, Ch. 8; Jain 1991, Ch. 36]: a c-server queue has μ(j) = min(j, c)/D (a delay center
// when c >= N), a delay center residence D, a single-server queue the ordinary MVA step
// D·(1 + Q(n−1)). The marginal probabilities p_k(j|n) of a load-dependent center are kept for j
// below the population m_k beyond which μ_k stays constant (c for a queue, min(T, N) for a pool);
// the tail enters through Q_k(n−1), as in the MVA for multi-server stations [Bolch et al., Queueing
// Networks and Markov Chains, 2006, Ch. 8].
//
// Numerics: p_k(0|n) = 1 − Σ_{j≥1} p_k(j|n) is a difference that rounding can push below zero near
// saturation (it is clamped at 0), and whose error the recursion p(j|n) = X(n)/μ(j)·p(j−1|n−1)
// magnifies up to Π_{j<m} μ(m)/μ(j) — c^(c−1)/(c−1)! for a c-server queue, 1e12 at c = 32: with
// the difference alone, a saturated 64-server center at 400 clients came out 31% low in X
// [Casale & Serazzi 2005 review this instability]. Where the magnification can exceed 1e6,
// p_k(0|n) is taken instead from the network without center k:
//   p_k(0|n) = G_{−k}(n)/G(n) = p_k(0|n−1)·X(n)/X_{−k}(n)   [Reiser 1981],
// a product of positive ratios. The complement networks are solved alongside, one per subset of
// such centers (2^U for U of them; more than 10 is rejected). The same magnification can carry a
// p_k(0|n) below the smallest double (e^-708) into probabilities near 1 at larger n — from about
// 700 servers on — so the kept probabilities are long doubles (down to e^-11355).
//
// Results per center in declaration order. A pool reports its token wait: queue_length the
// requests waiting for a token, residence that over X, utilization the mean tokens held over T.
// An inner center reports Q_i = Σ_j p_pool(j|N)·Q_i^in(min(j, T)), residence Q_i/X and
// utilization X·D_i/c_i. response = Σ residences, so N = X·(response + Z).
//
// Exactness: exact for a product-form network (exponential FCFS, any PS, delay centers) without
// pools. A pool's FES is exact when its tokens are always all held or never all held, or it holds
// one exponential (multi-server) station; otherwise it releases tokens as if the holding time were
// exponential while it is a sum of inner service times. Against the exact Markov chain of
// configs/sim.toml's network (tests/models/closed_network_test.cpp: threads 1–8, up to 12
// clients) that made X up to 1.4% high and the token wait up to 1.1% of N short. Service
// distributions are taken as exponential (PS and delay centers are insensitive to them);
// lognormal or deterministic FCFS service is not modeled. A request is taken to hold its token
// for all its consecutive visits within the pool (see models/open_network.hpp).
//
// Large populations and many servers, so that every solve takes bounded time: the exact solution
// costs 2^U·N·Σ m_k steps, plus population_curve's O(K_in²·m²) per pool with m = min(T, N, M)
// (M = pool_curve_limit of models/pool_model.hpp; a pool past M populations completes at X_in(M),
// low by at most 1 − X_in(M)/X_up as there). Without pools, Schweitzer's approximate MVA
// (mva_schweitzer of models/mva.hpp: multi-server centers with c < N by Seidmann's approximation,
// those with c >= N as the delays they are) replaces it when N > 2000 or its work would exceed
// kClosedWorkBudget (~0.4 s), and the result reports its iterations and convergence. With pools,
// over the budget the multi-server centers outside pools take Seidmann's approximation
// (seidmann_centers counts them), and then the P pools' curves end where the budget does, near
// budget/(2^P·N) populations each, with the same bound as past M; a network over it even so is
// rejected, as is N > 20000 (sim.toml at 20000 clients and 100 threads: 40 ms). Schweitzer's
// iteration is O(K) per step, at most 100000 steps.
//
// Units: demands, times and residence in ms, throughput per ms (as ClosedResult's other
// producers with ms demands). Pure function of (network, sample, N, Z).
// Failure: wb::InputError if a server count or demand evaluates to something impossible for this
// sample (naming the center, as solve_open does), if N < 0 or N > 20000 with pools (naming
// --clients), if Z is negative or not finite (naming --think), if more than 10 centers need
// complement networks, or if a network with pools needs more than kClosedWorkBudget steps.
#include "core/queue_network.hpp"
#include "core/sample.hpp"
#include "models/closed_model.hpp"

namespace wb {

// Above this population a network without pools is solved by Schweitzer's approximate MVA.
inline constexpr int kClosedExactLimit = 2000;
// Above this population a network with pools is rejected (no approximate method handles pools).
inline constexpr int kClosedPoolLimit = 20000;
// The most work (network × population × kept probability steps, ~8 ns each) the exact solution
// may take; see "Large populations".
inline constexpr double kClosedWorkBudget = 5e7;

ClosedResult solve_closed(const QueueNetwork& net, const Sample& sample, int clients, double think_ms);

}  // namespace wb
