// Runlength policies [003 §3.2, Fig. 6]. The adaptive one takes a trial mean's variance as σ²∞/r,
// regresses ln(s²r) on ln R̄, and picks the trials n and runlength r that reach the CI a load needs at
// least cost n·(r + overhead): docs/decisions.md#adaptive-runlength.
#include "policies/runlength.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/stats.hpp"
#include "policies/curve_fit.hpp"
#include "policies/search.hpp"

namespace wb {

std::vector<VarianceObservation> variance_observations(const std::vector<TestLoad>& loads) {
  std::vector<VarianceObservation> out;
  for (const auto& l : loads) {
    if (l.saturated || l.trials.size() < 2) continue;
    std::vector<double> xs;
    double overhead = 0;
    bool same_r = true;
    for (const auto& t : l.trials) {
      xs.push_back(t.mean_ms);
      overhead += t.cost_s - t.runlength_s;
      same_r = same_r && t.runlength_s == l.trials.front().runlength_s;
    }
    if (!same_r) continue;
    VarianceObservation o;
    o.mean_ms = mean_of(xs);
    o.runlength_s = l.trials.front().runlength_s;
    double sd = sample_stddev(xs);
    o.variance = sd * sd;
    o.trials = static_cast<int>(xs.size());
    o.overhead_s = std::max(0.0, overhead / static_cast<double>(xs.size()));
    if (o.mean_ms > 0 && o.variance > 0) out.push_back(o);
  }
  return out;
}

namespace {

// The share of the predicted distance to the region that the CI may take up: the prediction
// extrapolates a one-server curve and is often low near the peak.
constexpr double kDistanceShare = 0.25;

// Looks before the first one estimated to allow a claim that still examine it, for a spread smaller
// than estimated (A/B: docs/decisions.md#claim-looks).
constexpr std::size_t kClaimSlack = 1;

class FixedRunlength final : public RunlengthPolicy {
 public:
  RunPlan plan(double, const std::vector<TestLoad>&, const PeakConfig& peak, const Target&) override {
    return {peak.runlength_s, 0};
  }
};

class AdaptiveRunlength final : public RunlengthPolicy {
 public:
  AdaptiveRunlength(std::vector<VarianceObservation> prior, bool seeded)
      : prior_(std::move(prior)), seeded_(seeded) {}

  RunPlan plan(double rate, const std::vector<TestLoad>& history, const PeakConfig& peak,
               const Target& target) override {
    std::vector<VarianceObservation> obs = prior_;
    for (const auto& o : variance_observations(history)) obs.push_back(o);
    const double sat = peak.region.sat_ms;
    if (obs.empty()) return {peak.runlength_s, 0};
    double r_hat = 0;
    if (auto curve = fit_curve(history, sat)) {
      r_hat = curve->response_ms(rate);
      if (!std::isfinite(r_hat)) return {peak.runlength_s, 0};  // predicted beyond saturation: no basis
    } else if (seeded_ && history.empty()) {
      // A seed is the expected λ*, most likely claimed, so it gets the peak's sweet spot at once
      // (docs/decisions.md#adaptive-runlength).
      r_hat = sat;
    } else {
      return {peak.runlength_s, 0};
    }

    // ln ĉ = α + β ln R, weighted by degrees of freedom.
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, overhead = 0;
    for (const auto& o : obs) {
      double w = o.trials - 1, x = std::log(o.mean_ms), y = std::log(o.variance * o.runlength_s);
      sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
      overhead += w * o.overhead_s;
    }
    overhead /= sw;
    double mx = sx / sw, my = sy / sw, vx = sxx / sw - mx * mx;
    double beta = 4;
    if (obs.size() >= 3 && vx > 0.25 * 0.25) beta = std::clamp((sxy / sw - mx * my) / vx, 2.0, 6.0);
    double c_hat = std::exp(my + beta * (std::log(r_hat) - mx));

    const double lo = peak.region.low_ms(), hi = peak.region.high_ms();
    double dist = r_hat < lo ? lo - r_hat : (r_hat > hi ? r_hat - hi : 0);
    double h_acc = (1 - target.accuracy) * r_hat;
    bool decide = kDistanceShare * dist > h_acc;  // expected to end as below/above, not as the peak
    double h = std::max(kDistanceShare * dist, h_acc);

    std::vector<std::pair<int, double>> candidates;  // (n, t quantile)
    const std::vector<int> looks = accuracy_looks(peak);
    const double ck = 1.0 - (1.0 - target.confidence) / static_cast<double>(looks.size());
    if (decide || peak.sequential == Sequential::kNone) {
      for (int n = peak.min_trials; n <= peak.max_trials; ++n) {
        candidates.emplace_back(n, t_quantile(target.confidence, n - 1));
      }
    } else {
      for (int n : looks) candidates.emplace_back(n, t_quantile(ck, n - 1));
    }
    double best_cost = std::numeric_limits<double>::infinity(), best_r = peak.max_runlength_s;
    for (auto [n, t] : candidates) {
      double r = t * t * c_hat / (n * h * h);
      if (r > peak.max_runlength_s) continue;
      r = std::max(r, peak.min_runlength_s);
      double cost = n * (r + overhead);
      if (cost < best_cost) best_cost = cost, best_r = r;
    }
    // At the peak the 1/r law is least trustworthy (the correlation time grows without bound toward
    // saturation), so the claim is never made from trials shorter than the configured runlength.
    if (!decide) best_r = std::max(best_r, peak.runlength_s);
    // Whole seconds: a runlength is a setting people read.
    RunPlan plan{std::clamp(std::ceil(best_r), peak.min_runlength_s, peak.max_runlength_s), 0};
    if (decide || peak.sequential == Sequential::kNone) return plan;
    // Claims are examined from the first look at which the estimated spread could give an accurate CI,
    // less kClaimSlack: earlier looks would each take a share of 1 − c (judge_load's union bound). Fixed
    // before the load's first trial, so the bound holds (docs/decisions.md#claim-looks).
    auto claim_t = [&](std::size_t i) {
      double k = static_cast<double>(looks.size() - i);
      return t_quantile(1.0 - (1.0 - target.confidence) / k, looks[i] - 1);
    };
    std::size_t first = looks.size() - 1;
    for (std::size_t i = 0; i < looks.size(); ++i) {
      if (claim_t(i) * std::sqrt(c_hat / (plan.runlength_s * looks[i])) <= h) {
        first = i;
        break;
      }
    }
    plan.first_claim_look = looks[first > kClaimSlack ? first - kClaimSlack : 0];
    return plan;
  }

 private:
  std::vector<VarianceObservation> prior_;
  bool seeded_;
};

}  // namespace

std::unique_ptr<RunlengthPolicy> make_runlength_policy(RunlengthKind kind,
                                                       std::vector<VarianceObservation> prior, bool seeded) {
  if (kind == RunlengthKind::kAdaptive) return std::make_unique<AdaptiveRunlength>(std::move(prior), seeded);
  return std::make_unique<FixedRunlength>();
}

}  // namespace wb
