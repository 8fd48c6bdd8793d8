// Linear, strawman, model-guided [003 Alg. 4] and model-safe pickers on scripted response curves.
#include <catch2/catch.hpp>

#include <limits>

#include "policies/search.hpp"
#include "tests/policies/curve_runner.hpp"
#include "tests/policies/picker_steps.hpp"

using namespace wb;

namespace {

SearchOptions picker_options() {
  SearchOptions o;
  o.peak.region = PeakRegion::mean(40, 0.1);
  o.peak.start_rate = 50;
  o.peak.linear_step = 10;
  o.peak.max_loads = 40;
  o.target = Target::parse("95/90");
  return o;
}

SearchResult search(const std::string& policy, test::CurveRunner& runner, double start = 50,
                    bool seeded = false, SearchOptions o = picker_options()) {
  auto picker = make_picker(policy, o.peak, start, seeded);
  return run_search(Sample{}, o, *picker, runner);
}

bool in_region(const test::CurveRunner& c, double rate) {
  double r = c.response_ms(rate);
  return r >= 36 && r <= 44;
}

TestLoad scripted(double rate, double mean_ms, bool saturated = false) {
  TestLoad l;
  l.rate = rate;
  l.ci.mean = l.ci.low = l.ci.high = mean_ms;
  l.saturated = saturated;
  l.verdict = saturated || mean_ms > 44 ? Verdict::kAbove : (mean_ms < 36 ? Verdict::kBelow : Verdict::kPeak);
  return l;
}

// A scripted load with four trials (±1% around the mean), as the curve fit needs.
TestLoad measured(double rate, double mean_ms) {
  TestLoad l = scripted(rate, mean_ms);
  for (int i = 0; i < 4; ++i) {
    TrialResult t;
    t.mean_ms = mean_ms * (i % 2 == 0 ? 1.01 : 0.99);
    l.trials.push_back(t);
  }
  return l;
}

}  // namespace

TEST_CASE("every policy is known and has a one-line summary") {
  for (const auto& n : picker_names()) {
    CHECK_FALSE(picker_summary(n).empty());
    CHECK(picker_summary(n).find('\n') == std::string::npos);
    CHECK(make_picker(n, picker_options().peak, 50) != nullptr);
  }
  CHECK(picker_names().size() == 5);
}

TEST_CASE("linear steps by the fixed increment, then bisects [003 §3.5]") {
  test::CurveRunner c(135);
  SearchResult r = search("linear", c);
  REQUIRE(r.status == SearchStatus::kFound);
  CHECK(in_region(c, r.peak_rate));
  // 50, 60, ..., up to the first load above the region, then halving.
  REQUIRE(r.loads.size() >= 3);
  CHECK(r.loads[0].rate == 50);
  CHECK(r.loads[1].rate == 60);
  CHECK(r.loads[2].rate == 70);
}

TEST_CASE("strawman: fixed r and t at every load, λ* is the last load before saturation [003 §3.1]") {
  test::CurveRunner c(135);
  SearchOptions o = picker_options();
  o.peak.strawman_runlength_s = 300;
  o.peak.strawman_trials = 10;
  SearchResult r = search("strawman", c, 50, false, o);
  REQUIRE(r.status == SearchStatus::kFound);
  for (const auto& l : r.loads) {
    CHECK(l.trials.size() == 10);
    CHECK(l.runlength_s == 300);
  }
  // R(130) < 40 < R(140): λ* = 130, and the walk stops at 140.
  CHECK(r.peak_rate == Approx(130));
  CHECK(r.loads.back().rate == Approx(140));
  CHECK(r.loads.size() == 10);  // 50, 60, ..., 140
  CHECK(r.cost_s == Approx(10 * 10 * 330.0));
  CHECK(r.peak_low == Approx(130));
  CHECK(r.peak_high == Approx(140));
}

TEST_CASE("strawman's λ* interval starts at the highest load whose CI lies wholly below R_sat") {
  test::CurveRunner c(135.17);  // R(135) = 39.85 ms: below R_sat by its mean, its CI reaches past 40
  SearchOptions o = picker_options();
  o.peak.strawman_step = 5;
  SearchResult r = search("strawman", c, 50, false, o);
  REQUIRE(r.status == SearchStatus::kFound);
  CHECK(r.peak_rate == Approx(135));
  REQUIRE(r.loads.size() >= 2);
  const TestLoad& claimed = r.loads[r.loads.size() - 2];
  REQUIRE(claimed.rate == Approx(135));
  REQUIRE(claimed.ci.high > 40);  // the premise: this load's CI does not rule out λ* below it
  CHECK(r.peak_low == Approx(130));
  CHECK(r.peak_high == Approx(140));
}

TEST_CASE("strawman started above the peak walks down") {
  test::CurveRunner c(135);
  SearchResult r = search("strawman", c, 170);
  REQUIRE(r.status == SearchStatus::kFound);
  CHECK(r.peak_rate == Approx(130));
}

TEST_CASE(
    "strawman: a coarse step lands below the region, strawman_step small enough lands in it [003 §3.1]") {
  test::CurveRunner c(137);  // R(130) = 34.7 ms < 36 ms, R(135) = 39.4 ms, R(140) > 40 ms
  SearchOptions o = picker_options();
  SearchResult coarse = search("strawman", c, 50, false, o);
  REQUIRE(coarse.status == SearchStatus::kFound);
  CHECK(coarse.peak_rate == Approx(130));
  CHECK_FALSE(in_region(c, coarse.peak_rate));
  o.peak.strawman_step = 5;  // the linear picker keeps its own step
  SearchResult fine = search("strawman", c, 50, false, o);
  REQUIRE(fine.status == SearchStatus::kFound);
  CHECK(fine.peak_rate == Approx(135));
  CHECK(in_region(c, fine.peak_rate));
  CHECK(fine.loads.size() == 19);  // 50, 55, ..., 140
  SearchResult linear = search("linear", c, 50, false, o);
  REQUIRE(linear.loads.size() >= 2);
  CHECK(linear.loads[1].rate == 60);
}

TEST_CASE("model-guided [003 Alg. 4] converges in a few loads when the curve is the model's") {
  test::CurveRunner c(135);
  SearchResult r = search("model", c);
  REQUIRE(r.status == SearchStatus::kFound);
  CHECK(in_region(c, r.peak_rate));
  // 50, 100, then the two-point fit is exact: the third load is the peak.
  CHECK(r.loads.size() == 3);
}

TEST_CASE("model-guided is unstable: a noisy pair of tuples gives a falling curve and it gives up") {
  auto p = test::mean_40ms_picker("model", 50);
  std::vector<TestLoad> h;
  // A bad reading at 100/s (say a noisy first trial) shows less than at 50/s: the fitted curve
  // falls with load, there is no load at R_sat, and Alg. 4 has nothing else to go on.
  test::feed_readings(*p, h, {scripted(50, 20), scripted(100, 18)});
  CHECK_FALSE(p->next(h).has_value());
}

TEST_CASE("model-guided is unstable: tuples far from the region send it far past the peak") {
  auto p = test::mean_40ms_picker("model", 50);
  std::vector<TestLoad> h;
  p->next(h);
  // The true curve has its peak at 135/s, but readings at 50 and 100/s 10% low and 10% high.
  test::CurveRunner c(135);
  h.push_back(scripted(50, c.response_ms(50) * 1.1));
  p->next(h);
  h.push_back(scripted(100, c.response_ms(100) * 0.9));
  auto next = p->next(h);
  REQUIRE(next.has_value());
  // The fit puts the peak far past the region: about 9x R_sat, near the true capacity.
  CHECK(c.response_ms(*next) > 5 * 40);
}

TEST_CASE("model-safe converges from the same bad early samples, within a few loads of binsearch") {
  test::CurveRunner c(135);
  auto p = test::mean_40ms_picker("model-safe", 50);
  std::vector<TestLoad> h;
  p->next(h);
  h.push_back(scripted(50, c.response_ms(50) * 1.1));
  h.push_back(scripted(100, c.response_ms(100) * 0.9));
  int loads = 2;
  for (; loads < 40; ++loads) {
    auto next = p->next(h);
    REQUIRE(next.has_value());
    double rate = *next;
    bool sat = rate >= c.capacity();
    h.push_back(scripted(rate, sat ? 5000 : c.response_ms(rate), sat));
    if (h.back().verdict == Verdict::kPeak) break;
  }
  CHECK(h.back().verdict == Verdict::kPeak);
  CHECK(loads <= 2 + 8);
}

TEST_CASE("model-safe stays within a few loads of binsearch on many curves and starts") {
  for (double peak : {20.0, 37.0, 135.0, 260.0, 900.0}) {
    for (double start : {5.0, 50.0, 400.0}) {
      test::CurveRunner c(peak);
      SearchResult bs = search("binsearch", c, start);
      SearchResult ms = search("model-safe", c, start);
      INFO("peak " << peak << " start " << start << ": binsearch " << bs.loads.size() << " loads, model-safe "
                   << ms.loads.size());
      REQUIRE(bs.status == SearchStatus::kFound);
      REQUIRE(ms.status == SearchStatus::kFound);
      CHECK(in_region(c, ms.peak_rate));
      CHECK(ms.loads.size() <= bs.loads.size() + 3);
    }
  }
}

TEST_CASE("the λ* interval on a scripted curve brackets the true peak") {
  test::CurveRunner c(135);
  for (const char* policy : {"binsearch", "model-safe", "linear"}) {
    SearchResult r = search(policy, c);
    REQUIRE(r.status == SearchStatus::kFound);
    INFO(policy << ": [" << r.peak_low << ", " << r.peak_high << "] around λ* " << r.peak_rate);
    CHECK(r.peak_low <= 135);
    CHECK(r.peak_high >= 135);
    CHECK(r.peak_low <= r.peak_rate);
    CHECK(r.peak_high >= r.peak_rate);
    CHECK(r.peak_high < std::numeric_limits<double>::infinity());
  }
}

TEST_CASE("model-safe seeded with its neighbours' elasticity aims from its first load") {
  PeakConfig peak;
  peak.region = PeakRegion::mean(40, 0);
  test::CurveRunner c(135);  // elasticity at λ*: bλR = 3
  const double seed = 0.99 * 135;
  // The seed lies in the region, but its few trials read 35 ms, below the band.
  std::vector<TestLoad> h{measured(seed, 35)};
  auto plain = make_picker("model-safe", peak, seed, true);
  auto aimed = make_picker("model-safe", peak, seed, true, 3.0);
  auto p = plain->next(h), a = aimed->next(h);
  REQUIRE(p.has_value());
  REQUIRE(a.has_value());
  CHECK(*p == Approx(seed * peak.seed_step));  // without: the seed step
  // With: the load at R_sat on the curve of elasticity 3 through (seed, 35 ms).
  CHECK(*a == Approx(seed * (1 + (40.0 / 35 - 1) / 3)));
  CHECK(c.response_ms(*a) < 50);
  CHECK(c.response_ms(*p) > 100);  // far above the region: 139 ms
  // A first load that saturated: R̄ = ∞, so λ(1 − 1/e) below it, but never beyond the seed step.
  std::vector<TestLoad> sat{scripted(seed, 5000, true)};
  auto steep = make_picker("model-safe", peak, seed, true, 8.0);
  auto s = steep->next(sat);
  REQUIRE(s.has_value());
  CHECK(*s == Approx(seed * (1 - 1.0 / 8)));
  auto shallow = make_picker("model-safe", peak, seed, true, 3.0);
  CHECK(*shallow->next(sat) == Approx(seed / peak.seed_step));
  // Unseeded, the elasticity is not used: the doubling ramp as before.
  auto unseeded = make_picker("model-safe", peak, seed, false, 3.0);
  CHECK(*unseeded->next(h) == Approx(2 * seed));
}

TEST_CASE("a seeded model-safe search with the elasticity finds the peak from seeds on either side") {
  for (double peak_rate : {37.0, 135.0, 900.0}) {
    for (double off : {0.9, 0.98, 1.03, 1.2}) {
      test::CurveRunner c(peak_rate);
      SearchOptions o = picker_options();
      auto picker = make_picker("model-safe", o.peak, off * peak_rate, true, 3.0);
      SearchResult r = run_search(Sample{}, o, *picker, c);
      INFO("peak " << peak_rate << " seed " << off << ": " << r.loads.size() << " loads");
      REQUIRE(r.status == SearchStatus::kFound);
      CHECK(in_region(c, r.peak_rate));
      CHECK(r.loads.size() <= 4);
    }
  }
}
