// fit_curve's slope prior and response_elasticity (policies/curve_fit.hpp).
#include <catch2/catch.hpp>

#include <cmath>

#include "policies/curve_fit.hpp"
#include "tests/policies/curve_runner.hpp"

using namespace wb;

namespace {

// A load of `n` trials whose means alternate mean·(1 ± spread).
TestLoad load_at(double rate, double mean_ms, double spread = 0.01, int n = 4) {
  TestLoad l;
  l.rate = rate;
  for (int i = 0; i < n; ++i) {
    TrialResult t;
    t.mean_ms = mean_ms * (i % 2 == 0 ? 1 + spread : 1 - spread);
    l.trials.push_back(t);
  }
  l.ci.mean = mean_ms;
  return l;
}

}  // namespace

TEST_CASE("response_elasticity is bλR on the fitted curve") {
  test::CurveRunner c(135);  // 1/R = a − bλ with R = 10 ms at zero load and 40 ms at 135/s
  std::vector<TestLoad> loads{load_at(60, c.response_ms(60)), load_at(120, c.response_ms(120)),
                              load_at(130, c.response_ms(130))};
  const double b = (0.1 - 0.025) / 135;
  auto e = response_elasticity(loads, 135, 40);
  REQUIRE(e.has_value());
  CHECK(*e == Approx(b * 135 * 40).epsilon(0.02));  // 3: R_sat/R0 − 1
  // Loads read back from the store carry trials but no CI: the mean comes from the trials.
  for (auto& l : loads) l.ci = MeanInterval{};
  auto from_trials = response_elasticity(loads, 135, 40);
  REQUIRE(from_trials.has_value());
  CHECK(*from_trials == Approx(*e).epsilon(1e-6));
  // One load has no curve.
  CHECK_FALSE(response_elasticity({loads.front()}, 135, 40).has_value());
}

TEST_CASE("with a slope prior one load gives the curve of that slope through it") {
  TestLoad one = load_at(100, 32);
  CHECK_FALSE(fit_curve({one}, 40).has_value());
  const double b0 = 2e-4;
  auto c = fit_curve({one}, 40, SlopePrior{b0, 0.5});
  REQUIRE(c.has_value());
  CHECK(c->b == Approx(b0).epsilon(1e-6));
  CHECK(c->response_ms(100) == Approx(32).epsilon(1e-6));
  // Its load at R_sat: λ(1 + (R_sat/R̄ − 1)/e) with e = b0·λ·R_sat = 0.8.
  CHECK(c->rate_at(40) == Approx(100 * (1 + (40.0 / 32 - 1) / 0.8)).epsilon(1e-6));
}

TEST_CASE("a slope prior holds a noisy close pair near its slope and yields to loads far apart") {
  const double b0 = 1.5e-4;  // the true slope: 1/R = 0.04 − b0·λ, R_sat = 40 ms at 100/s
  auto truth = [&](double rate) { return 1 / (0.04 - b0 * rate); };
  // Two loads 1% apart whose means are off by noise in opposite directions: the pair's own slope
  std::vector<TestLoad> pair{load_at(99, truth(99) * 1.04, 0.08), load_at(100, truth(100) * 0.97, 0.08)};
  // is falling, so alone it gives no curve; with the prior it gives about the true one.
  CHECK_FALSE(fit_curve(pair, 40).has_value());
  auto held = fit_curve(pair, 40, SlopePrior{b0, 0.5});
  REQUIRE(held.has_value());
  CHECK(held->b == Approx(b0).epsilon(0.3));
  CHECK(held->rate_at(40) == Approx(100).epsilon(0.02));
  // Loads far apart with small spread: the data decides, even against a prior twice too steep.
  // (Within 8%, not exactly: the model error counts the loads far below R_sat as rough, 30% of 1/R̄
  // per e-fold, so the prior still pulls the slope up by about 6%.)
  std::vector<TestLoad> spread{load_at(40, truth(40)), load_at(80, truth(80)), load_at(98, truth(98))};
  auto data = fit_curve(spread, 40, SlopePrior{2 * b0, 0.5});
  REQUIRE(data.has_value());
  CHECK(data->b == Approx(b0).epsilon(0.08));
}

TEST_CASE("region_centre moves a claim near the region's edge to where the curve reaches R_sat") {
  // A claim at 100/s that measured 37 ms on a curve of elasticity 4: R_sat = 40 ms lies
  // (40/37 − 1)/4 = 2.03% further on.
  std::vector<TestLoad> loads{load_at(80, 25), load_at(100, 37)};
  CHECK(region_centre(loads, 100, 40, 0.1, 4) == Approx(100 * (1 + (40.0 / 37 - 1) / 4)));
  // Never beyond the region's half-width in λ (width/e = 2.5%), whatever the mean says.
  std::vector<TestLoad> far{load_at(100, 30)};
  CHECK(region_centre(far, 100, 40, 0.1, 4) == Approx(102.5));
  std::vector<TestLoad> high{load_at(100, 60)};
  CHECK(region_centre(high, 100, 40, 0.1, 4) == Approx(97.5));
  // No elasticity, or no load at λ*: the claim itself.
  CHECK(region_centre(loads, 100, 40, 0.1, 0) == 100);
  CHECK(region_centre(loads, 90, 40, 0.1, 4) == 90);
}
