#pragma once
// Single-station formulas for c identical servers fed by a Poisson stream: Erlang B and C, the M/M/c
// means [Kleinrock, Queueing Systems Vol. 1, §3.5] and the Allen–Cunneen correction. Pure; times in one
// unit u, rates in 1/u. Invalid arguments throw wb::Error; an unstable station does not.

namespace wb {

// Erlang B: probability that an arrival finds all `servers` busy in M/M/c/c with offered load
// a = λ·S (Erlangs), any a >= 0, in time bounded independently of c (docs/decisions.md#erlang-b-large-c).
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

// Mean time in queue of an M/G/c FCFS station by Allen–Cunneen: W_q ≈ W_q(M/M/c)·(1 + c_s²)/2 with
// Poisson arrivals, exact for c = 1 and for exponential service. `service_scv` is the service time's
// squared coefficient of variation. +infinity when unstable.
double allen_cunneen_wait(int servers, double arrival_rate, double service_time, double service_scv);

}  // namespace wb
