#include "core/stats.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "core/error.hpp"

namespace wb {

double MeanInterval::accuracy() const {
  if (!(mean > 0)) return 0;
  return 1.0 - half_width() / mean;
}

double mean_of(std::span<const double> xs) {
  if (xs.empty()) return 0;
  return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}

double sample_stddev(std::span<const double> xs) {
  if (xs.size() < 2) return 0;
  double m = mean_of(xs), ss = 0;
  for (double x : xs) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}

double t_quantile(double confidence, double df) {
  double p = 1.0 - (1.0 - confidence) / 2.0;
  if (df > 30) return boost::math::quantile(boost::math::normal_distribution<double>(), p);
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

MeanInterval mean_interval(std::span<const double> xs, double confidence) {
  if (xs.size() < 2) throw Error("a confidence interval needs at least two trials");
  MeanInterval ci;
  ci.mean = mean_of(xs);
  double n = static_cast<double>(xs.size());
  double h = t_quantile(confidence, n - 1) * sample_stddev(xs) / std::sqrt(n);
  ci.low = ci.mean - h;
  ci.high = ci.mean + h;
  return ci;
}

MeanInterval response_interval(std::span<const double> xs, double confidence) {
  MeanInterval ci = mean_interval(xs, confidence);
  if (!std::all_of(xs.begin(), xs.end(), [](double x) { return x > 0; })) {
    ci.low = std::max(0.0, ci.low);
    return ci;
  }
  std::vector<double> ys(xs.size());
  std::transform(xs.begin(), xs.end(), ys.begin(), [](double x) { return std::log(x); });
  const double n = static_cast<double>(ys.size());
  const double s2 = std::pow(sample_stddev(ys), 2);
  const double centre = mean_of(ys) + s2 / 2;
  const double h = t_quantile(confidence, n - 1) * std::sqrt(s2 / n + s2 * s2 / (2 * (n - 1)));
  ci.low = std::exp(centre - h);
  ci.high = std::exp(centre + h);
  return ci;
}

double prediction_half_width(double sum_sq, std::size_t count, int fitted, SpreadPrior prior, double level) {
  const double n = static_cast<double>(count);
  const double df = std::max(0.0, prior.df) + n - fitted;
  if (!(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  const double scale = std::sqrt((std::max(0.0, prior.df) * prior.sd * prior.sd + sum_sq) / df);
  const double inflation = fitted > 0 && n > 0 ? std::sqrt(1 + 1 / n) : 1.0;
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), 1 - (1 - level) / 2) *
         scale * inflation;
}

}  // namespace wb
