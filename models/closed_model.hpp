#pragma once
// The single-class closed queueing model the MVA and convolution solvers share: N customers cycle
// between a think (delay) stage of mean Z and service centers of total demand D per cycle (visits ×
// service time per visit). Times in any one unit u, throughput in 1/u.
#include <string>
#include <vector>

namespace wb {

// Throws Error unless a closed model's population is >= 0.
void check_population(int population);

enum class ClosedCenterKind {
  kQueue,  // c identical servers, FCFS with exponential service or PS (product form)
  kDelay,  // infinitely many servers: no queueing, residence = demand
};

struct ClosedCenter {
  std::string name;
  double demand = 0;  // D_k = V_k·S_k per customer cycle, >= 0
  int servers = 1;    // c_k >= 1 (ignored for delay centers)
  ClosedCenterKind kind = ClosedCenterKind::kQueue;
};

struct ClosedCenterResult {
  std::string name;
  double residence = 0;     // R_k: time per cycle spent at the center (queueing + service)
  double queue_length = 0;  // Q_k: mean customers at the center (waiting + in service)
  double utilization = 0;   // U_k = X·D_k/c_k per server; 0 for delay centers
};

struct ClosedResult {
  int population = 0;                       // N
  double throughput = 0;                    // X (cycles per unit time)
  double response = 0;                      // R = Σ R_k, excluding think time; N = X·(R + Z)
  std::vector<ClosedCenterResult> centers;  // in the order given
  int iterations = 0;                       // iterative solvers: updates performed; 0 for exact ones
  bool converged = true;                    // iterative solvers: tolerance met within the iteration limit
  int seidmann_centers = 0;                 // multi-server centers taken by Seidmann's approximation
};

// Throws wb::Error if a demand is negative or not finite, servers < 1, or think time < 0.
void check_closed_model(const std::vector<ClosedCenter>& centers, double think_time);

}  // namespace wb
