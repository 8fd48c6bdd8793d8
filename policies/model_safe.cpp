// Model-safe load picking (not in [003]): the model of [003 §3.6] fitted to every load and kept in
// Binsearch's bracket [003 Alg. 3] like a safeguarded secant, so the bracket halves at least every
// second load. Steps, seeds and the slope prior: docs/decisions.md#model-safe-picker.
#include <algorithm>
#include <cmath>
#include <limits>

#include "policies/curve_fit.hpp"
#include "policies/load_picker.hpp"

namespace wb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The neighbours' elasticity predicts this sample's within ±50% (one standard deviation): having a
// slope at all is the gain, its width matters less (docs/decisions.md#slope-prior).
constexpr double kPriorRelSd = 0.5;

class ModelSafePicker final : public LoadPicker {
 public:
  ModelSafePicker(const PeakConfig& peak, double start_rate, bool seeded, double elasticity)
      : r_sat_ms_(peak.region.sat_ms),
        start_rate_(start_rate),
        seeded_(seeded),
        seed_step_(peak.seed_step),
        elasticity_(seeded && elasticity > 0 && std::isfinite(elasticity) ? elasticity : 0),
        // The smallest step past a bracket end the model puts the peak at: half the region's half-width
        // in λ (width/e) when the elasticity is known, else 2%.
        min_step_(elasticity_ > 0 ? std::min(0.02, 0.5 * peak.region.width / elasticity_) : 0.02) {}

  std::optional<double> next(const std::vector<TestLoad>& history) override {
    if (history.empty()) return start_rate_;
    double hi = kInf;
    for (const auto& l : history) {
      if (l.verdict == Verdict::kAbove) hi = std::min(hi, l.rate);
    }
    double lo = 0;  // below loads under hi only: noise can put a "below" above an "above"
    for (const auto& l : history) {
      if (l.verdict == Verdict::kBelow && l.rate < hi) lo = std::max(lo, l.rate);
    }
    std::optional<double> predicted;
    std::optional<SlopePrior> prior;
    if (elasticity_ > 0) prior = SlopePrior{elasticity_ / (start_rate_ * r_sat_ms_), kPriorRelSd};
    if (auto curve = fit_curve(history, r_sat_ms_, prior)) {
      double p = curve->rate_at(r_sat_ms_);
      if (p > 0 && std::isfinite(p)) predicted = p;
    } else if (elasticity_ > 0 &&
               std::all_of(history.begin(), history.end(), [](const TestLoad& l) { return l.saturated; })) {
      double lowest = kInf;  // R̄ = ∞ there
      for (const auto& l : history) lowest = std::min(lowest, l.rate);
      predicted = lowest * (1 - 1 / elasticity_);
    }

    // Consecutive ramp steps in one direction, for the growing step of a seeded search.
    int ramp = 0;
    for (std::size_t i = history.size(); i-- > 0 && history[i].verdict == history.back().verdict;) ++ramp;
    // Seeded: seed_step, its square, its fourth power, ... (1.25, 1.56, 2.44, 5.96 by default).
    double factor = seeded_ ? std::pow(seed_step_, std::pow(2.0, ramp - 1)) : 2.0;

    if (hi == kInf) {  // no upper end yet: grow
      double cap = lo * factor;
      if (predicted && *predicted > lo) return std::clamp(*predicted, lo * (1 + min_step_), cap);
      return cap;
    }
    if (lo == 0) {  // no lower end yet: shrink
      double floor = hi / factor;
      if (predicted && *predicted < hi) return std::clamp(*predicted, floor, hi * (1 - min_step_));
      return floor;
    }
    double width = hi - lo;
    if (width < 1e-3 * hi) return std::nullopt;
    bool model_failed = last_width_ > 0 && last_was_model_ && width > 0.5 * last_width_;
    last_width_ = width;
    if (predicted && *predicted > lo && *predicted < hi && !model_failed) {
      last_was_model_ = true;
      return std::clamp(*predicted, lo + 0.05 * width, hi - 0.05 * width);
    }
    last_was_model_ = false;
    return (lo + hi) / 2;
  }

 private:
  double r_sat_ms_;
  double start_rate_;
  bool seeded_;
  double seed_step_;
  double elasticity_;
  double min_step_;
  double last_width_ = 0;
  bool last_was_model_ = false;
};

}  // namespace

std::unique_ptr<LoadPicker> make_model_safe_picker(const PeakConfig& peak, double start_rate, bool seeded,
                                                   double elasticity) {
  return std::make_unique<ModelSafePicker>(peak, start_rate, seeded, elasticity);
}

}  // namespace wb
