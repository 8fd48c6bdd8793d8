#include "models/demand_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/tools/roots.hpp>

#include "core/error.hpp"
#include "models/open_network.hpp"

namespace wb {

QueueNetwork scale_demand(const QueueNetwork& resolved, const Sample& sample, const std::string& center,
                          double k) {
  QueueNetwork net = resolved;
  for (auto& c : net.centers) {
    if (c.pool || c.name != center) continue;
    c.demand_ms = Expr::constant(c.demand_ms.eval(sample) * k);
    return net;
  }
  throw Error(fmt::format("recalibration: the model has no center {} with a demand", center));
}

SolvedMultiplier solve_multiplier(const QueueNetwork& resolved, const Sample& sample,
                                  const std::string& center, double r_sat_ms, double measured) {
  if (!(measured > 0) || !std::isfinite(measured))
    throw Error(fmt::format("recalibration: measured λ* {} is not a rate > 0", measured));
  // g(log k) = log λ*(k) − log measured, non-increasing in k; λ* = 0 (idle R above R_sat) is a
  // large negative value (finite: the root solver interpolates).
  auto g = [&](double log_k) {
    const double peak =
        predicted_peak(scale_demand(resolved, sample, center, std::exp(log_k)), sample, r_sat_ms);
    return peak > 0 ? std::log(peak) - std::log(measured) : -1e3;
  };
  const double g1 = g(0);
  if (std::abs(g1) < 1e-6) return {1, true};
  // g is flat while the center is not the bottleneck and falls about one for one in log k once it
  // is, so the first guess is log k = g(0); from there, steps of a factor 2 until the sign changes.
  const double bound = std::log(kMaxDemandMultiplier);
  const bool high = g1 > 0;  // the model too optimistic: more demand
  double near = 0, far = std::clamp(g1, -bound, bound);
  double g_near = g1, g_far = g(far);
  while ((g_far > 0) == high && g_far != 0) {
    if (std::abs(far) >= bound) return {std::exp(far), false};
    near = far;
    g_near = g_far;
    far = std::clamp(far + (high ? std::log(2.0) : -std::log(2.0)), -bound, bound);
    g_far = g(far);
  }
  if (g_far == 0) return {std::exp(far), true};
  // The root in (near, far): TOMS 748, which keeps the bracket (and so the root nearest 1 where g
  // has a flat stretch, since g is monotone).
  if (near > far) {
    std::swap(near, far);
    std::swap(g_near, g_far);
  }
  std::uintmax_t iterations = 60;
  const auto [a, b] = boost::math::tools::toms748_solve(
      g, near, far, g_near, g_far, boost::math::tools::eps_tolerance<double>(30), iterations);
  return {std::exp(0.5 * (a + b)), true};
}

double DemandCurve::log_multiplier(const Sample& sample) const {
  if (!sample.has(factor)) return 0;
  if (!numeric) {
    auto it = levels.find(sample.value(factor));
    return it == levels.end() ? 0.0 : it->second;
  }
  if (knots.empty()) return 0;
  const double x = sample.numeric(factor);
  if (x <= knots.front().first) return knots.front().second;
  if (x >= knots.back().first) return knots.back().second;
  auto hi = std::lower_bound(knots.begin(), knots.end(), x,
                             [](const std::pair<double, double>& k, double v) { return k.first < v; });
  auto lo = std::prev(hi);
  // Linear in the multiplier, as a demand that grows by a fixed amount per unit of the factor does.
  const double t = (x - lo->first) / (hi->first - lo->first);
  return std::log(std::exp(lo->second) + t * (std::exp(hi->second) - std::exp(lo->second)));
}

std::string DemandCurve::describe() const {
  std::string out = center + " demand";
  auto add = [&](const std::string& level, double log_k) {
    out += fmt::format(" x{:.2f} at {}={}", std::exp(log_k), factor, level);
  };
  if (numeric) {
    for (const auto& [x, lk] : knots) add(fmt::format("{:g}", x), lk);
  } else {
    for (const auto& [level, lk] : levels) add(level, lk);
  }
  return out;
}

std::string Recalibration::describe() const {
  std::string out;
  for (const DemandCurve& c : curves) out += (out.empty() ? "" : "; ") + c.describe();
  return out + (from_stages ? " (from stage times)" : " (from λ*)");
}

QueueNetwork recalibrate(const QueueNetwork& resolved, const Sample& sample, const Recalibration& r) {
  QueueNetwork net = resolved;
  for (const DemandCurve& c : r.curves)
    net = scale_demand(net, sample, c.center, std::exp(c.log_multiplier(sample)));
  return net;
}

DemandCurve fit_demand_curve(const std::string& center, const std::string& factor, bool numeric,
                             const std::vector<CurvePoint>& points, std::optional<std::size_t> leave_out) {
  DemandCurve curve;
  curve.center = center;
  curve.factor = factor;
  curve.numeric = numeric;
  std::map<double, std::pair<double, int>> by_value;
  std::map<std::string, std::pair<double, int>> by_level;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (leave_out && *leave_out == i) continue;
    const CurvePoint& p = points[i];
    if (!p.sample.has(factor))
      throw Error(fmt::format("recalibration: sample {} has no level of {}", p.sample.key(), factor));
    auto& sum = numeric ? by_value[p.sample.numeric(factor)] : by_level[p.sample.value(factor)];
    sum.first += p.log_k;
    ++sum.second;
    ++curve.points;
  }
  for (const auto& [x, s] : by_value) curve.knots.emplace_back(x, s.first / s.second);
  for (const auto& [level, s] : by_level) curve.levels[level] = s.first / s.second;
  return curve;
}

}  // namespace wb
