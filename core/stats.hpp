#pragma once
#include <cstddef>
#include <span>

namespace wb {

// A confidence interval of a mean across independent trials.
struct MeanInterval {
  double mean = 0;
  double low = 0;
  double high = 0;
  double half_width() const { return (high - low) / 2; }
  // accuracy = 1 - half-width/mean [003 eq. 2]; 0 when the mean is not positive.
  double accuracy() const;
};

double mean_of(std::span<const double> xs);
double sample_stddev(std::span<const double> xs);  // n-1 denominator; 0 for n < 2

// Two-sided quantile t_{1-(1-c)/2, df} of Student's t (Boost.Math), or of the normal
// distribution when df > 30 as [003 §2.3] prescribes.
double t_quantile(double confidence, double df);

// Student-t interval of the mean of xs at confidence c (t with n-1 degrees of freedom; normal
// beyond 30). REQUIRES: xs.size() >= 2.
MeanInterval mean_interval(std::span<const double> xs, double confidence);

// Interval of the mean response across trials, at confidence c: for positive values the modified
// Cox interval of a log-normal mean, exp(ȳ + s²/2 ± t·√(s²/n + s⁴/(2(n−1)))) on y = ln x [Olsson
// 2005], which is skewed like the data and never reaches below zero; where a value is zero or
// negative, the Student-t interval with its low end at zero. `mean` is the arithmetic mean.
// REQUIRES: xs.size() >= 2 (docs/decisions.md#response-intervals).
MeanInterval response_interval(std::span<const double> xs, double confidence);

// What is known of a residual's spread before any residual is seen: a scaled-inverse-χ² prior on
// its variance with scale `sd` worth `df` observations [BDA3 §3.2, docs/decisions.md#answer-intervals].
struct SpreadPrior {
  double sd = 0;
  double df = 0;
  bool operator==(const SpreadPrior&) const = default;
};

// Half-width of the two-sided prediction interval at `level` for one more residual like n seen
// ones whose squares sum to `sum_sq` (normal, variance unknown, prior `prior`): Student t with
// prior.df + n - fitted degrees of freedom, scale sqrt((prior.df prior.sd² + sum_sq) / that), times
// sqrt(1 + 1/n) when one parameter (`fitted` = 1, a mean) was fitted to the same residuals. NaN when
// no degree of freedom is left.
double prediction_half_width(double sum_sq, std::size_t n, int fitted, SpreadPrior prior, double level);

}  // namespace wb
