#pragma once
// Operational laws and asymptotic bounds [001 §III-C eq. 1, 2; 000 §3.3 eq. 3; Denning & Buzen 1978]:
// flow balance only, no distributions; c servers limit throughput by D_k/c_k, delay centers never.
// Times in one unit u, throughput 1/u. Pure; wb::Error for an invalid model or negative population.
#include <string>
#include <vector>

#include "models/closed_model.hpp"

namespace wb {

struct BottleneckBounds {
  double total_demand = 0;    // D = Σ_k D_k (the response time of a lone customer)
  double max_demand = 0;      // D_max = max_k D_k/c_k over queueing centers (0 if there are none)
  std::string bottleneck;     // the center with D_max ("" if none)
  double think_time = 0;      // Z
  double max_throughput = 0;  // 1/D_max (+infinity if D_max = 0): the open-loop peak [000 §3.3]
  double knee = 0;            // N* = (D + Z)/D_max: customers needed to saturate the bottleneck [001 §III-C]
};

BottleneckBounds bottleneck_bounds(const std::vector<ClosedCenter>& centers, double think_time);

// X(N) ≤ min(1/D_max, N/(D + Z)) [001 eq. 1, 000 eq. 3].
double throughput_bound(const BottleneckBounds& b, double population);

// R(N) ≥ max(D, N·D_max − Z): the response-time bound that follows from the throughput bound.
double response_bound(const BottleneckBounds& b, double population);

// The interactive response time law R = N/X − Z [001 eq. 2] (Little's law over the whole cycle).
// Throws wb::Error if throughput is not positive.
double response_time_law(double population, double throughput, double think_time);

// Utilization law U_k = X·D_k/c_k.
double utilization_law(double throughput, const ClosedCenter& center);

// The service demand law D_k = U_k/X [Denning & Buzen 1978]: demand per request from utilization U_k
// (busy time over the interval, summed over c servers, so up to c) and throughput X over the same
// interval, at any load. Throws wb::Error unless U_k >= 0 and X > 0, both finite.
double service_demand_law(double utilization, double throughput);

// The forced flow law read backwards, V_k = X_k/X: visits per request from the center's
// completion rate and the system's over the same interval. Throws wb::Error unless X_k >= 0 and
// X > 0, both finite.
double forced_flow_visits(double center_throughput, double throughput);

}  // namespace wb
