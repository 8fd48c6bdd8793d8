#include "ratio_stats.hpp"

#include <algorithm>
#include <random>

#include "tour.hpp"

namespace wb::bench {

namespace {

constexpr int kDraws = 2000;

double at_quantile(std::vector<double>& sorted, double q) {
  return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
}

}  // namespace

std::pair<double, double> bootstrap_ratio_interval(const std::vector<double>& a, const std::vector<double>& b,
                                                   double level, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::size_t> pick_a(0, a.size() - 1), pick_b(0, b.size() - 1);
  std::vector<double> ratios, ra(a.size()), rb(b.size());
  for (int i = 0; i < kDraws; ++i) {
    for (auto& x : ra) x = a[pick_a(gen)];
    for (auto& x : rb) x = b[pick_b(gen)];
    ratios.push_back(median(ra) / median(rb));
  }
  std::sort(ratios.begin(), ratios.end());
  return {at_quantile(ratios, (1 - level) / 2), at_quantile(ratios, (1 + level) / 2)};
}

std::pair<double, double> bootstrap_paired_ratio_interval(const std::vector<double>& a,
                                                          const std::vector<double>& b, double level,
                                                          unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::size_t> pick(0, a.size() - 1);
  std::vector<double> ratios, ra(a.size()), rb(a.size());
  for (int i = 0; i < kDraws; ++i) {
    for (std::size_t k = 0; k < a.size(); ++k) {
      const std::size_t s = pick(gen);
      ra[k] = a[s], rb[k] = b[s];
    }
    ratios.push_back(median(ra) / median(rb));
  }
  std::sort(ratios.begin(), ratios.end());
  return {at_quantile(ratios, (1 - level) / 2), at_quantile(ratios, (1 + level) / 2)};
}

NullWorst null_worst_ratio(const std::vector<std::vector<double>>& a,
                           const std::vector<std::vector<double>>& b, double goal, double observed,
                           unsigned seed) {
  std::mt19937_64 gen(seed);
  std::bernoulli_distribution swap(0.5);
  std::vector<double> worst;
  int over_goal = 0, over_observed = 0;
  for (int i = 0; i < kDraws; ++i) {
    double w = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      std::vector<double> ra = a[k], rb = b[k];
      for (std::size_t s = 0; s < ra.size(); ++s) {
        if (swap(gen)) std::swap(ra[s], rb[s]);
      }
      w = std::max(w, median(ra) / median(rb));
    }
    over_goal += w > goal;
    over_observed += w >= observed;
    worst.push_back(w);
  }
  std::sort(worst.begin(), worst.end());
  return NullWorst{static_cast<double>(over_goal) / kDraws, static_cast<double>(over_observed) / kDraws,
                   at_quantile(worst, 0.95)};
}

}  // namespace wb::bench
