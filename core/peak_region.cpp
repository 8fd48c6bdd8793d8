#include "core/peak_region.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace wb {

namespace {

constexpr std::array<std::pair<ResponseMetric, double>, 4> kPercentiles{{{ResponseMetric::kP50, 0.50},
                                                                         {ResponseMetric::kP90, 0.90},
                                                                         {ResponseMetric::kP95, 0.95},
                                                                         {ResponseMetric::kP99, 0.99}}};

}  // namespace

std::string_view metric_name(ResponseMetric m) {
  switch (m) {
    case ResponseMetric::kMean: return "mean";
    case ResponseMetric::kP50: return "p50";
    case ResponseMetric::kP90: return "p90";
    case ResponseMetric::kP95: return "p95";
    case ResponseMetric::kP99: return "p99";
  }
  return "mean";
}

std::optional<ResponseMetric> percentile_metric(double q) {
  for (const auto& [m, quantile] : kPercentiles) {
    if (q == quantile) return m;
  }
  return std::nullopt;
}

std::optional<double> metric_quantile(ResponseMetric m) {
  for (const auto& [metric, quantile] : kPercentiles) {
    if (m == metric) return quantile;
  }
  return std::nullopt;
}

double PeakRegion::value(const TrialResult& t) const {
  switch (metric) {
    case ResponseMetric::kMean: return t.mean_ms;
    case ResponseMetric::kP50: return t.p50_ms;
    case ResponseMetric::kP90: return t.p90_ms;
    case ResponseMetric::kP95: return t.p95_ms;
    case ResponseMetric::kP99: return t.p99_ms;
  }
  return t.mean_ms;
}

std::string PeakRegion::describe() const {
  return fmt::format("{} response time {:g} ms ± {:g}%", metric_name(metric), sat_ms, width * 100);
}

}  // namespace wb
