// [003 Alg. 3] Binsearch: double the load until one saturates, then halve the bracket.
#include "policies/load_picker.hpp"

namespace wb {

namespace {

class BinsearchPicker final : public LoadPicker {
 public:
  BinsearchPicker(double r_sat_ms, double start_rate) : r_sat_ms_(r_sat_ms), start_rate_(start_rate) {}

  std::optional<double> next(const std::vector<TestLoad>& history) override {
    if (history.empty()) return start_rate_;  // Step 1
    const TestLoad& cur = history.back();
    double prev = history.size() >= 2 ? history[history.size() - 2].rate : 0.0;
    // A saturated load has, in effect, an unbounded response time.
    bool low = !cur.saturated && cur.ci.mean < r_sat_ms_;
    if (geometric_) {  // Step 2
      if (low) return cur.rate * 2;
      geometric_ = false;
      low_ = prev;
      high_ = cur.rate;
    } else if (low && cur.rate >= high_) {
      // A load measured again at the bracket's top (a collapsed bracket's retry) is below after all:
      // the top was one stall, so the doubling resumes from here.
      geometric_ = true;
      return cur.rate * 2;
    } else if (low) {  // Step 3
      low_ = cur.rate;
    } else {
      high_ = cur.rate;
    }
    // The bracket has shrunk below what a load generator can resolve: the region lies between
    // two loads that both missed it.
    if (high_ - low_ < 1e-3 * high_) return std::nullopt;
    return (low_ + high_) / 2;
  }

 private:
  double r_sat_ms_;
  double start_rate_;
  bool geometric_ = true;
  double low_ = 0, high_ = 0;
};

}  // namespace

std::unique_ptr<LoadPicker> make_binsearch_picker(const PeakConfig& peak, double start_rate) {
  return std::make_unique<BinsearchPicker>(peak.region.sat_ms, start_rate);
}

}  // namespace wb
