#pragma once
// Buzen's convolution for a single-class closed product-form network with load-dependent centers
// [Buzen 1973; Jain 1991, Ch. 35]: exact for c-server and delay centers, where MVA approximates, and
// the curve X(n) a flow-equivalent server needs. Pure; throws wb::Error for an invalid model.
#include <vector>

#include "models/closed_model.hpp"

namespace wb {

// Throughput and queue lengths of a closed network for every population 0..N.
struct PopulationCurve {
  std::vector<double> throughput;          // X(n), n = 0..N (X(0) = 0)
  std::vector<std::vector<double>> queue;  // queue[k][n] = Q_k(n), mean customers at center k
};

// No think stage: every customer is always at one of the centers.
PopulationCurve population_curve(const std::vector<ClosedCenter>& centers, int population);

// The full solution at population N with think time Z (a delay stage outside the centers).
ClosedResult solve_convolution(const std::vector<ClosedCenter>& centers, int population, double think_time);

}  // namespace wb
