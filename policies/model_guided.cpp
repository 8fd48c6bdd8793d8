// [003 Alg. 4] Model-guided load picking as the paper gives it: fit R = 1/(a − bλ) through the
// current load and the earlier one nearest R_sat, and try the fit's load at R_sat. Not guaranteed to
// converge [003 §3.6]: a fit that falls with load ends the search, and no bracket bounds its steps.
#include <cmath>
#include <limits>

#include "policies/curve_fit.hpp"
#include "policies/load_picker.hpp"

namespace wb {

namespace {

class ModelGuidedPicker final : public LoadPicker {
 public:
  ModelGuidedPicker(double r_sat_ms, double start_rate) : r_sat_ms_(r_sat_ms), start_rate_(start_rate) {}

  std::optional<double> next(const std::vector<TestLoad>& history) override {
    if (history.empty()) return start_rate_;  // Step 1
    const TestLoad& cur = history.back();
    if (history.size() == 1) return below(cur) ? cur.rate * 2 : cur.rate / 2;
    // Step 2: the earlier tuple whose response is nearest R_sat (saturated = infinitely far).
    const TestLoad* nearest = nullptr;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i + 1 < history.size(); ++i) {
      double d = std::fabs(response(history[i]) - r_sat_ms_);
      if (d < best || nearest == nullptr) {
        best = d;
        nearest = &history[i];
      }
    }
    auto curve = fit_two_points(cur.rate, response(cur), nearest->rate, response(*nearest));
    if (!curve) return std::nullopt;  // no rising curve through the two tuples: unstable
    double rate = curve->rate_at(r_sat_ms_);
    if (!(rate > 0) || !std::isfinite(rate)) return std::nullopt;
    return rate;
  }

 private:
  bool below(const TestLoad& l) const { return !l.saturated && l.ci.mean < r_sat_ms_; }
  static double response(const TestLoad& l) {
    return l.saturated ? std::numeric_limits<double>::infinity() : l.ci.mean;
  }
  double r_sat_ms_;
  double start_rate_;
};

}  // namespace

std::unique_ptr<LoadPicker> make_model_guided_picker(const PeakConfig& peak, double start_rate) {
  return std::make_unique<ModelGuidedPicker>(peak.region.sat_ms, start_rate);
}

}  // namespace wb
