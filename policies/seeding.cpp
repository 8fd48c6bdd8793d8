// [003 §3.7] Seeding heuristics: start a search at the peak rate of the nearest measured sample.
#include "policies/seeding.hpp"

#include "policies/curve_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

namespace {

double position(const Factor& f, double v) {
  const auto& lv = f.numeric_levels;
  if (lv.size() < 2) return 0;
  // Levels are declared in order; allow either direction.
  for (std::size_t i = 0; i + 1 < lv.size(); ++i) {
    double x0 = lv[i], x1 = lv[i + 1];
    if ((v - x0) * (v - x1) <= 0 && x0 != x1) return static_cast<double>(i) + (v - x0) / (x1 - x0);
  }
  // Outside the declared range: extrapolate from the nearer end.
  bool low_end = std::fabs(v - lv.front()) < std::fabs(v - lv.back());
  std::size_t i = low_end ? 0 : lv.size() - 2;
  return static_cast<double>(i) + (v - lv[i]) / (lv[i + 1] - lv[i]);
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  std::size_t n = xs.size();
  return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

bool usable_rate(std::optional<double> r) { return r && *r > 0 && std::isfinite(*r); }

bool categorical_match(const Sample& a, const Sample& b, const std::vector<Factor>& factors) {
  for (const auto& f : factors) {
    if (f.numeric) continue;
    if (a.has(f.name) != b.has(f.name)) return false;
    if (a.has(f.name) && a.value(f.name) != b.value(f.name)) return false;
  }
  return true;
}

}  // namespace

double sample_distance(const Sample& a, const Sample& b, const std::vector<Factor>& factors) {
  double sum = 0;
  for (const auto& f : factors) {
    if (!f.numeric || !a.has(f.name) || !b.has(f.name) || f.numeric_levels.size() < 2) continue;
    double d = (position(f, a.numeric(f.name)) - position(f, b.numeric(f.name))) /
               static_cast<double>(f.numeric_levels.size() - 1);
    sum += d * d;
  }
  return std::sqrt(sum);
}

PastPeak past_peak(const Sample& sample, const std::vector<TestLoad>& loads, double peak_rate,
                   const PeakConfig& peak) {
  PastPeak p{sample, peak_rate};
  p.elasticity = response_elasticity(loads, peak_rate, peak.region.sat_ms).value_or(0);
  p.centre = region_centre(loads, peak_rate, peak.region.sat_ms, peak.region.width, p.elasticity);
  return p;
}

namespace {

// The median elasticity of the chosen past peaks, else of all usable ones; 0 when none has one.
double median_elasticity(const std::vector<const PastPeak*>& chosen,
                         const std::vector<const PastPeak*>& usable) {
  for (const auto* group : {&chosen, &usable}) {
    std::vector<double> es;
    for (const auto* p : *group) {
      if (p->elasticity > 0 && std::isfinite(p->elasticity)) es.push_back(p->elasticity);
    }
    if (!es.empty()) return median(es);
  }
  return 0;
}

// The peak of a past sample carried to `sample`: its region centre (else its λ*), scaled by the
// expectation's ratio between the two samples when the expectation knows both.
struct Carrier {
  const ExpectedPeak& expected;
  std::optional<double> e_sample;
  bool scaled = false;

  double operator()(const PastPeak& p) {
    const double rate = p.centre > 0 && std::isfinite(p.centre) ? p.centre : p.peak_rate;
    if (!e_sample) return rate;
    std::optional<double> e_past = expected(p.sample);
    if (!usable_rate(e_past)) return rate;
    scaled = true;
    return rate * *e_sample / *e_past;
  }
};

}  // namespace

std::optional<SeedChoice> choose_seed(const Sample& sample, const std::vector<PastPeak>& past,
                                      const std::vector<Factor>& factors, const ExpectedPeak& expected) {
  std::optional<double> e_sample;
  if (expected) e_sample = expected(sample);
  if (!usable_rate(e_sample)) e_sample.reset();
  std::vector<const PastPeak*> usable;
  for (const auto& p : past) {
    if (p.peak_rate > 0 && std::isfinite(p.peak_rate)) usable.push_back(&p);
  }
  if (usable.empty()) {
    if (!e_sample) return std::nullopt;
    SeedChoice model_only;
    model_only.rate = *e_sample;
    model_only.distance = std::nan("");
    model_only.scaled = true;
    return model_only;
  }
  std::vector<const PastPeak*> matching;
  for (const auto* p : usable) {
    if (categorical_match(sample, p->sample, factors)) matching.push_back(p);
  }
  bool numeric = std::any_of(factors.begin(), factors.end(),
                             [](const Factor& f) { return f.numeric && f.numeric_levels.size() >= 2; });
  // Without a matching numeric neighbour, the median over the matching (else all) peaks;
  // otherwise the median over the nearest matching ones.
  std::vector<const PastPeak*> chosen;
  SeedChoice choice;
  choice.distance = std::nan("");
  if (matching.empty() || !numeric) {
    chosen = matching.empty() ? usable : matching;
  } else {
    double best = std::numeric_limits<double>::infinity();
    for (const auto* p : matching) best = std::min(best, sample_distance(sample, p->sample, factors));
    for (const auto* p : matching) {
      if (sample_distance(sample, p->sample, factors) <= best + 1e-12) chosen.push_back(p);
    }
    choice.distance = best;
  }
  Carrier carried{expected, e_sample};
  std::vector<double> rates;
  for (const auto* p : chosen) {
    rates.push_back(carried(*p));
    choice.from.push_back(p->sample);
  }
  choice.rate = median(rates);
  choice.scaled = carried.scaled;
  choice.elasticity = median_elasticity(chosen, usable);
  return choice;
}

}  // namespace wb
