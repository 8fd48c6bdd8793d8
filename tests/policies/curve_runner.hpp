#pragma once
// A scripted testbed for picker tests: R(λ) = 1/(a − bλ) ms with ±1% alternating noise (so CIs are
// narrow but not zero), saturated at and beyond a/b. Costs r + 30 s per trial.
#include <cmath>

#include "core/trial.hpp"

namespace wb::test {

class CurveRunner final : public TrialRunner {
 public:
  // peak: the load where R = r_sat_ms; r0: R at zero load.
  CurveRunner(double peak, double r_sat_ms = 40, double r0 = 10)
      : a_(1 / r0), b_((1 / r0 - 1 / r_sat_ms) / peak) {}
  double response_ms(double rate) const { return 1 / (a_ - b_ * rate); }
  double capacity() const { return a_ / b_; }
  TrialResult run(const Sample&, double rate, double runlength_s, std::uint64_t i) override {
    TrialResult t;
    t.offered_rate = rate;
    t.runlength_s = runlength_s;
    t.sent = 1000;
    bool sat = rate >= 0.999 * capacity();
    t.completed = sat ? 800 : 1000;
    t.achieved_rate = sat ? 0.8 * rate : rate;
    t.mean_ms = sat ? 5000 : response_ms(rate) * (i % 2 == 0 ? 1.01 : 0.99);
    t.cost_s = runlength_s + 30;
    return t;
  }

 private:
  double a_, b_;
};

}  // namespace wb::test
