#include "models/operational_laws.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace wb {

BottleneckBounds bottleneck_bounds(const std::vector<ClosedCenter>& centers, double think_time) {
  check_closed_model(centers, think_time);
  BottleneckBounds b;
  b.think_time = think_time;
  for (const auto& c : centers) {
    b.total_demand += c.demand;
    if (c.kind == ClosedCenterKind::kDelay) continue;
    double per_server = c.demand / c.servers;
    if (per_server > b.max_demand) {
      b.max_demand = per_server;
      b.bottleneck = c.name;
    }
  }
  const double no_limit = std::numeric_limits<double>::infinity();
  b.max_throughput = b.max_demand > 0 ? 1 / b.max_demand : no_limit;
  b.knee = b.max_demand > 0 ? (b.total_demand + think_time) / b.max_demand : no_limit;
  return b;
}

double throughput_bound(const BottleneckBounds& b, double population) {
  if (population < 0) throw Error(fmt::format("throughput bound: population {} (need >= 0)", population));
  double cycle = b.total_demand + b.think_time;
  double light = cycle > 0 ? population / cycle : std::numeric_limits<double>::infinity();
  return std::min(b.max_throughput, light);
}

double response_bound(const BottleneckBounds& b, double population) {
  if (population < 0) throw Error(fmt::format("response bound: population {} (need >= 0)", population));
  return std::max(b.total_demand, population * b.max_demand - b.think_time);
}

double response_time_law(double population, double throughput, double think_time) {
  if (!(throughput > 0)) throw Error(fmt::format("response time law: throughput {} (need > 0)", throughput));
  return population / throughput - think_time;
}

double utilization_law(double throughput, const ClosedCenter& center) {
  if (center.kind == ClosedCenterKind::kDelay) return 0;
  return throughput * center.demand / center.servers;
}

namespace {

void check_rate(const char* law, const char* what, double v, bool positive) {
  if (!std::isfinite(v) || v < 0 || (positive && v == 0))
    throw Error(fmt::format("{}: {} = {} (need a finite value {} 0)", law, what, v, positive ? ">" : ">="));
}

}  // namespace

double service_demand_law(double utilization, double throughput) {
  check_rate("service demand law", "utilization", utilization, false);
  check_rate("service demand law", "throughput", throughput, true);
  return utilization / throughput;
}

double forced_flow_visits(double center_throughput, double throughput) {
  check_rate("forced flow law", "center throughput", center_throughput, false);
  check_rate("forced flow law", "throughput", throughput, true);
  return center_throughput / throughput;
}

}  // namespace wb
