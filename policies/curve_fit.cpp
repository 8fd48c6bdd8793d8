#include "policies/curve_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

namespace {

// fit_curve's model error, 30% of 1/R̄ per e-fold of R̄ away from R_sat: a pool of servers bends 1/R
// down late, so a line leaning on loads far below the peak reaches R_sat too early
// (docs/decisions.md#curve-model-error).
constexpr double kModelError = 0.3;

}  // namespace

double ResponseCurve::response_ms(double rate) const {
  double inv = a - b * rate;
  return inv > 0 ? 1.0 / inv : std::numeric_limits<double>::infinity();
}

std::optional<ResponseCurve> fit_two_points(double rate1, double r1_ms, double rate2, double r2_ms) {
  if (rate1 == rate2 || !(r1_ms > 0) || !(r2_ms > 0)) return std::nullopt;
  double y1 = std::isfinite(r1_ms) ? 1.0 / r1_ms : 0.0;
  double y2 = std::isfinite(r2_ms) ? 1.0 / r2_ms : 0.0;
  ResponseCurve c;
  c.b = (y1 - y2) / (rate2 - rate1);
  c.a = y1 + c.b * rate1;
  if (!(c.b > 0) || !(c.a > 0)) return std::nullopt;
  return c;
}

std::optional<ResponseCurve> fit_curve(const std::vector<TestLoad>& loads, double r_sat_ms,
                                       std::optional<SlopePrior> prior) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  int points = 0;
  double first_rate = -1;
  bool distinct = false;
  for (const auto& l : loads) {
    if (l.saturated || l.trials.size() < 2 || !(l.ci.mean > 0) || !std::isfinite(l.ci.mean)) continue;
    double n = static_cast<double>(l.trials.size());
    double sum = 0, sum2 = 0;
    for (const auto& t : l.trials) sum += t.mean_ms;
    double m = sum / n;
    for (const auto& t : l.trials) sum2 += (t.mean_ms - m) * (t.mean_ms - m);
    double var_mean = std::max(sum2 / (n - 1) / n, 1e-6 * m * m);
    double y = 1.0 / l.ci.mean;
    double var_y = var_mean / std::pow(l.ci.mean, 4);
    double model = kModelError * y * std::log(l.ci.mean / r_sat_ms);
    double w = 1.0 / (var_y + model * model);
    double x = l.rate;
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
    ++points;
    if (first_rate < 0)
      first_rate = x;
    else if (x != first_rate)
      distinct = true;
  }
  // The prior is one more equation, slope = −b0, of weight 1/(rel_sd·b0)²: it adds to the slope's
  // diagonal and right-hand side of the normal equations only (docs/decisions.md#curve-slope-prior).
  const bool with_prior = prior && prior->b > 0 && prior->rel_sd > 0 && std::isfinite(prior->b);
  if (with_prior) {
    if (points < 1) return std::nullopt;
    double wp = 1.0 / std::pow(prior->rel_sd * prior->b, 2);
    sxx += wp;
    sxy += wp * -prior->b;
  } else if (points < 2 || !distinct) {
    return std::nullopt;
  }
  double det = sw * sxx - sx * sx;
  if (!(det > 0)) return std::nullopt;
  double slope = (sw * sxy - sx * sy) / det;
  ResponseCurve c;
  c.b = -slope;
  c.a = (sy - slope * sx) / sw;
  if (!(c.b > 0) || !(c.a > 0)) return std::nullopt;
  return c;
}

std::optional<double> response_elasticity(std::vector<TestLoad> loads, double rate, double r_ms) {
  for (auto& l : loads) {
    if (l.ci.mean > 0 || l.trials.empty()) continue;
    double sum = 0;
    for (const auto& t : l.trials) sum += t.mean_ms;
    l.ci.mean = sum / static_cast<double>(l.trials.size());
  }
  std::optional<ResponseCurve> c = fit_curve(loads, r_ms);
  if (!c || !(rate > 0) || !(r_ms > 0)) return std::nullopt;
  double e = c->b * rate * r_ms;
  if (!(e > 0) || !std::isfinite(e)) return std::nullopt;
  return e;
}

double region_centre(const std::vector<TestLoad>& loads, double peak_rate, double r_sat_ms, double width,
                     double elasticity) {
  if (!(elasticity > 0) || !std::isfinite(elasticity)) return peak_rate;
  const TestLoad* claimed = nullptr;
  for (const auto& l : loads) {
    if (l.rate == peak_rate && !l.trials.empty()) claimed = &l;
  }
  if (claimed == nullptr) return peak_rate;
  double sum = 0;
  for (const auto& t : claimed->trials) sum += t.mean_ms;
  const double mean = sum / static_cast<double>(claimed->trials.size());
  if (!(mean > 0)) return peak_rate;
  const double shift =
      std::clamp((r_sat_ms / mean - 1) / elasticity, -width / elasticity, width / elasticity);
  return peak_rate * (1 + shift);
}

}  // namespace wb
