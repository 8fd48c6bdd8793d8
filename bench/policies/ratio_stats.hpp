// How far bench_policies' per-sample ratios of median costs (model-safe ÷ binsearch over the seeds)
// move by the draw of the seeds alone.
#pragma once

#include <utility>
#include <vector>

namespace wb::bench {

// A percentile bootstrap interval for median(a)/median(b), the seeds of each resampled with
// replacement (2000 times, a fixed generator).
std::pair<double, double> bootstrap_ratio_interval(const std::vector<double>& a, const std::vector<double>& b,
                                                   double level, unsigned seed);

// The same for paired costs: a[s] and b[s] come from one draw s (the same start and trials), so the
// pairs are resampled together.
std::pair<double, double> bootstrap_paired_ratio_interval(const std::vector<double>& a,
                                                          const std::vector<double>& b, double level,
                                                          unsigned seed);

// The worst ratio of medians over the samples when the two policies cost the same on every sample:
// a[k][s] and b[k][s] are the costs on sample k with seed s, and under that null hypothesis each
// pair is exchangeable, so each draw swaps every pair with probability 1/2 (a randomization test,
// 2000 draws, a fixed generator).
struct NullWorst {
  double p_over_goal = 0;  // fraction of draws whose worst ratio exceeds `goal`
  double p_observed = 0;   // fraction of draws whose worst ratio is at least `observed`
  double quantile95 = 0;   // 95th percentile of the worst ratio
};
NullWorst null_worst_ratio(const std::vector<std::vector<double>>& a,
                           const std::vector<std::vector<double>>& b, double goal, double observed,
                           unsigned seed);

}  // namespace wb::bench
