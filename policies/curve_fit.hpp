#pragma once
#include <optional>
#include <vector>

#include "core/search_result.hpp"

namespace wb {

// The open-queue response curve R(λ) = 1/(a − bλ) of [003 §3.6], in its linear form 1/R = a − bλ.
struct ResponseCurve {
  double a = 0;  // 1/R at zero load, 1/ms
  double b = 0;  // > 0 for a curve that rises with load
  // R at `rate` in ms; +infinity at or beyond the curve's asymptote a/b.
  double response_ms(double rate) const;
  // The load at which R = r_ms.
  double rate_at(double r_ms) const { return (a - 1.0 / r_ms) / b; }
};

// [003 Alg. 4] The curve through two (λ, R) points; R may be +infinity (a saturated load, 1/R = 0).
// nullopt when the points share a load or the curve does not rise with load.
std::optional<ResponseCurve> fit_two_points(double rate1, double r1_ms, double rate2, double r2_ms);

// Weighted least squares of 1/R = a − bλ over every load with at least two trials that did not
// saturate. A load's weight is the inverse of the variance of 1/R̄ (delta method:
// var(R̄)/R̄⁴, var(R̄) = s²/n) plus a model-error term that grows with |ln(R̄/R_sat)|, because the
// one-server form fits best near the peak and worst far below it (a multi-server pool bends the
// curve late). nullopt with fewer than two distinct loads or when the fit does not rise with load.
std::optional<ResponseCurve> fit_curve(const std::vector<TestLoad>& loads, double r_sat_ms);

}  // namespace wb
