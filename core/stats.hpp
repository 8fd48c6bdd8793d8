#pragma once
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

}  // namespace wb
