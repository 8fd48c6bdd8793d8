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
// var(R̄)/R̄⁴, var(R̄) = s²/n) plus a model error of 30% of 1/R̄ per unit of |ln(R̄/R_sat)|, because the
// one-server form fits best near the peak and worst far below it (a multi-server pool bends the
// curve late). nullopt with fewer than two distinct loads or when the fit does not rise with load.
//
// With a `prior` slope b0 (known to within a relative standard deviation `prior_rel_sd`), the fit
// is the posterior mode instead: the squared error gains (b − b0)²/(prior_rel_sd·b0)², as one
// observation of the slope (ridge regression toward b0). One load then suffices: the curve through
// it with slope b0. Two loads close together, whose slope is mostly noise, then give about b0
// rather than a curve that is almost flat or falls.
struct SlopePrior {
  double b = 0;
  double rel_sd = 0.5;
};
std::optional<ResponseCurve> fit_curve(const std::vector<TestLoad>& loads, double r_sat_ms,
                                       std::optional<SlopePrior> prior = std::nullopt);

// The elasticity of the response time with load at (rate, r_ms), d ln R / d ln λ = bλR on the
// curve fit_curve() fits to `loads`: the relative change of R for a relative change of λ, a pure
// number that carries from one sample to a similar one whatever their rates (about 2 on
// configs/sim.toml's one-disk samples, whose region spans ±5% of λ*, and 8 on the four-disk ones,
// ±1.3%). A load's mean is taken from its trials when its CI is not filled in (loads read back from
// the store). nullopt when there is no curve.
std::optional<double> response_elasticity(std::vector<TestLoad> loads, double rate, double r_ms);

// Where the peak-rate region of a found search is centred: the load at which the curve of
// `elasticity` through its claimed load (peak_rate, its mean R̄) reaches R_sat,
// λ*(1 + (R_sat/R̄ − 1)/e), kept within λ*(1 ± width/e), the region's half-width in λ. A claim
// may lie anywhere in its region, near an edge too; a seed at the centre leaves a neighbour whose
// region is shifted a little the most room. peak_rate when the elasticity is not positive or no
// load ran at peak_rate.
double region_centre(const std::vector<TestLoad>& loads, double peak_rate, double r_sat_ms, double width,
                     double elasticity);

}  // namespace wb
