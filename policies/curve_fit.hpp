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

// Weighted least squares of 1/R = a − bλ over the loads with ≥ 2 trials that did not saturate,
// weighted by 1/var(1/R̄) plus a model error (curve_fit.cpp). nullopt with < 2 distinct loads or a
// curve that does not rise with load. A `prior` slope makes it a ridge fit: one load then suffices.
struct SlopePrior {
  double b = 0;
  double rel_sd = 0.5;
};
std::optional<ResponseCurve> fit_curve(const std::vector<TestLoad>& loads, double r_sat_ms,
                                       std::optional<SlopePrior> prior = std::nullopt);

// The elasticity d ln R / d ln λ = bλR at (rate, r_ms) on the curve fit_curve() fits to `loads`, a
// pure number that carries to similar samples (docs/decisions.md#seeding). Loads without a CI (read
// from the store) use their trials' mean. nullopt when there is no curve.
std::optional<double> response_elasticity(std::vector<TestLoad> loads, double rate, double r_ms);

// The centre of a found search's peak-rate region: λ*(1 + (R_sat/R̄ − 1)/e) on the curve of
// `elasticity` through the claimed load, kept within λ*(1 ± width/e). peak_rate when the elasticity
// is not positive or no load ran at peak_rate.
double region_centre(const std::vector<TestLoad>& loads, double peak_rate, double r_sat_ms, double width,
                     double elasticity);

}  // namespace wb
