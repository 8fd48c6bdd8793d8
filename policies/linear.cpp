// [003 §3.5] Linear: step the load by a fixed increment until it crosses the region, then bisect.
// [003 §3.1] Strawman: steps of strawman_step with fixed r and t, no bisection; λ* is the last load
// before saturation (Algorithm 1's inner loop). Why small steps: docs/decisions.md#strawman-step.
#include <limits>

#include "policies/load_picker.hpp"

namespace wb {

namespace {

class LinearPicker final : public LoadPicker {
 public:
  LinearPicker(const PeakConfig& peak, double start_rate, bool strawman)
      : step_(strawman ? peak.strawman_step : peak.linear_step),
        start_rate_(start_rate),
        strawman_(strawman) {
    if (strawman) plan_ = FixedPlan{peak.strawman_trials, peak.strawman_runlength_s};
  }

  std::optional<double> next(const std::vector<TestLoad>& history) override {
    if (history.empty()) return start_rate_;
    double lo = 0, hi = std::numeric_limits<double>::infinity();
    for (const auto& l : history) {
      if (l.verdict == Verdict::kBelow && l.rate > lo) lo = l.rate;
      if (l.verdict == Verdict::kAbove && l.rate < hi) hi = l.rate;
    }
    if (hi == std::numeric_limits<double>::infinity()) return lo + step_;  // ramp up
    if (lo == 0) return hi - step_ > 0 ? hi - step_ : hi / 2;              // start was above: ramp down
    if (strawman_) return std::nullopt;  // a load below with the next step above it: done
    if (hi - lo < 1e-3 * hi) return std::nullopt;
    return (lo + hi) / 2;
  }

  std::optional<FixedPlan> fixed_plan() const override { return plan_; }

 private:
  double step_;
  double start_rate_;
  bool strawman_;
  std::optional<FixedPlan> plan_;
};

}  // namespace

std::unique_ptr<LoadPicker> make_linear_picker(const PeakConfig& peak, double start_rate, bool strawman) {
  return std::make_unique<LinearPicker>(peak, start_rate, strawman);
}

}  // namespace wb
