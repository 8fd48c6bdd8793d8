#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/stats.hpp"
#include "core/trial.hpp"

namespace wb {

// The response-time statistic a peak-rate region is defined on [003 §3.3]: the mean, or one of
// the percentiles every trial reports (TrialResult::p50_ms ... p99_ms).
enum class ResponseMetric { kMean, kP50, kP90, kP95, kP99 };

// "mean", "p50", "p90", "p95", "p99".
std::string_view metric_name(ResponseMetric m);
// The metric of a `[peak] percentile` value: 0.5, 0.9, 0.95 or 0.99; nullopt for any other.
std::optional<ResponseMetric> percentile_metric(double q);
// The quantile of a percentile metric (0.99 for kP99); nullopt for the mean.
std::optional<double> metric_quantile(ResponseMetric m);

// The peak-rate region [003 §3.3]: the loads whose response metric lies in [sat(1-s), sat(1+s)],
// with sat = R_sat for the mean and L_sat for a percentile. Every picker, judge_load, the
// strawman, seeding and the reports steer on the same region through this type.
struct PeakRegion {
  ResponseMetric metric = ResponseMetric::kMean;
  double sat_ms = 0;  // R_sat, or L_sat for a percentile
  double width = 0;   // s

  // A region on the mean at R_sat ± s.
  static PeakRegion mean(double r_sat_ms, double width) { return {ResponseMetric::kMean, r_sat_ms, width}; }

  double low_ms() const { return sat_ms * (1 - width); }
  double high_ms() const { return sat_ms * (1 + width); }
  // The region widened to sat(1 ± max(s, 1 − accuracy)): a target that accepts a coarser accuracy
  // than the region's width claims no more than it asked for (judge_load).
  double band(double accuracy) const { return width > 1 - accuracy ? width : 1 - accuracy; }
  // The trial's value of the metric, ms.
  double value(const TrialResult& t) const;
  // Whether an interval of the metric overlaps [low_ms, high_ms].
  bool overlaps(const MeanInterval& ci) const { return ci.low <= high_ms() && ci.high >= low_ms(); }
  // "mean response time 40 ms ± 10%" or "p99 response time 120 ms ± 10%".
  std::string describe() const;
};

}  // namespace wb
