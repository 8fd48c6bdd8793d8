#include "core/trial.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace wb {

namespace {

void require(bool ok, const char* field, double value, const char* what) {
  if (!ok) throw Error(fmt::format("trial.{}: {} {}", field, value, what));
}

}  // namespace

void check_trial(const TrialResult& t) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  auto non_negative = [](double v) { return std::isfinite(v) && v >= 0; };
  require(positive(t.offered_rate), "offered_rate", t.offered_rate, "is not a positive rate");
  require(positive(t.runlength_s), "runlength_s", t.runlength_s, "is not a positive number of seconds");
  require(non_negative(t.achieved_rate), "achieved_rate", t.achieved_rate, "is not a rate >= 0");
  require(non_negative(t.cost_s), "cost_s", t.cost_s, "is not a cost in seconds >= 0");
  if (t.completed > t.sent || t.errors > t.sent) {
    throw Error(fmt::format("trial.sent: {} is less than completed ({}) or errors ({})", t.sent, t.completed,
                            t.errors));
  }
  const std::pair<const char*, double> latencies[] = {{"mean_ms", t.mean_ms}, {"p50_ms", t.p50_ms},
                                                      {"p90_ms", t.p90_ms},   {"p95_ms", t.p95_ms},
                                                      {"p99_ms", t.p99_ms},   {"max_ms", t.max_ms}};
  for (const auto& [name, v] : latencies) require(non_negative(v), name, v, "is not a latency >= 0");
  // Rounding slack for the mean: a sum of doubles over the count.
  require(t.mean_ms <= t.max_ms * (1 + 1e-9) + 1e-9, "mean_ms", t.mean_ms, "exceeds max_ms");
  require(t.p50_ms <= t.p90_ms && t.p90_ms <= t.p95_ms && t.p95_ms <= t.p99_ms && t.p99_ms <= t.max_ms,
          "p50_ms", t.p50_ms, "starts percentiles that are not in order (p50 <= p90 <= p95 <= p99 <= max)");
  for (const auto& [stage, v] : t.stage_ms) {
    if (!non_negative(v)) throw Error(fmt::format("trial.stage_ms.{}: {} is not a time >= 0", stage, v));
  }
}

}  // namespace wb
