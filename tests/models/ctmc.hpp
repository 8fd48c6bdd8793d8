#pragma once
// Test-only brute force: continuous-time Markov chains solved from their balance equations with
// Eigen, as an independent check of the closed-form and recursive solvers in models/.
#include <Eigen/Dense>
#include <functional>
#include <map>
#include <vector>

namespace wb::test {

// Stationary distribution π of a generator Q (rows sum to 0): πQ = 0, Σπ = 1.
Eigen::VectorXd stationary(const Eigen::MatrixXd& generator);

// M/M/c truncated at `capacity` customers (choose it so the tail is negligible): π(0..capacity).
std::vector<double> mmc_distribution(int servers, double arrival_rate, double service_time, int capacity);

// A closed cyclic network: N customers visit stations 0 → 1 → … → K−1 → 0. Station k serves
// with mean time service[k] per visit on servers[k] servers (0 = infinitely many, a delay).
// Returns the stationary probability of every state (customers per station).
std::map<std::vector<int>, double> closed_cyclic(const std::vector<double>& service,
                                                 const std::vector<int>& servers, int population);

}  // namespace wb::test
