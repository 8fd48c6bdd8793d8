#pragma once
// Single-station formulas for c identical servers fed by a Poisson stream: Erlang B and C and the
// M/M/c means built on them [Kleinrock, Queueing Systems Vol. 1, §3.5], plus the Allen–Cunneen
// correction for general service times.
//
// Units: any one time unit u for service times and waits, 1/u for rates. Pure functions, no state.
// Failure: invalid arguments (servers < 1, negative or non-finite load, rate or time) throw
// wb::Error; an unstable station (offered load >= servers) is not an error, see each function.

namespace wb {

// Erlang B: probability that an arrival finds all `servers` busy in M/M/c/c with offered load
// a = λ·S (Erlangs). Any a >= 0.
// Time is bounded independently of c: up to 1000 servers the recurrence B(k) = a·B(k−1)/(k +
// a·B(k−1)); above, B = P(X = c)/P(X <= c), X ~ Poisson(a), from Boost.Math's incomplete gamma
// function where a < c + 30·sqrt(c), else a series of at most 1.5·sqrt(c) + 70 terms (see
// erlang.cpp). All three agree with the recurrence to 1e-12 relative (tests/models/erlang_test.cpp).
// A B below the smallest normal double may come out 0.
double erlang_b(int servers, double offered);

// Erlang C: probability that an arrival must wait in M/M/c with offered load a = λ·S, in closed
// form from Erlang B (so in the same bounded time). Returns 1 when a >= servers (the queue grows
// without bound).
double erlang_c(int servers, double offered);

// Steady-state means of an M/M/c FCFS queue (also the means of M/M/c processor sharing where each
// of n jobs is served at min(1, c/n): the number in system follows the same birth-death chain).
struct MmcResult {
  bool stable = false;      // utilization < 1; otherwise the waits below are +infinity
  double utilization = 0;   // ρ = λS/c, per server
  double p_wait = 0;        // Erlang C
  double wait = 0;          // mean time in queue, W_q
  double response = 0;      // W_q + S
  double queue_length = 0;  // mean number waiting, L_q = λ·W_q
  double in_system = 0;     // L = λ·(W_q + S)
};
MmcResult mmc(int servers, double arrival_rate, double service_time);

// Mean time in queue of an M/G/c FCFS station by the Allen–Cunneen approximation:
// W_q ≈ W_q(M/M/c) · (c_a² + c_s²)/2 with Poisson arrivals (c_a² = 1). Exact for c = 1
// (Pollaczek–Khinchine) and for exponential service (c_s² = 1). `service_scv` is the squared
// coefficient of variation of the service time. +infinity when unstable.
double allen_cunneen_wait(int servers, double arrival_rate, double service_time, double service_scv);

}  // namespace wb
