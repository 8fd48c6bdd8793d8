#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "policies/load_picker.hpp"
#include "tests/policies/picker_steps.hpp"

using namespace wb;

namespace {

TestLoad load(double rate, double mean_ms, bool saturated = false) {
  TestLoad l;
  l.rate = rate;
  l.ci.mean = l.ci.low = l.ci.high = mean_ms;
  l.saturated = saturated;
  l.verdict = mean_ms < 40 && !saturated ? Verdict::kBelow : Verdict::kAbove;
  return l;
}

}  // namespace

TEST_CASE("binsearch doubles until saturation, then halves the bracket [003 Alg. 3]") {
  auto p = test::mean_40ms_picker("binsearch", 50);
  std::vector<TestLoad> h;
  test::feed_readings(*p, h,
                      {load(50, 5), load(100, 8), load(200, 90),  // above: bracket [100, 200]
                       load(150, 20),                             // below: [150, 200]
                       load(175, 0, true)});                      // saturated counts as above: [150, 175]
  REQUIRE(p->next(h) == 162.5);
}

TEST_CASE("binsearch from a start load above the peak halves toward zero") {
  auto p = test::mean_40ms_picker("binsearch", 400);
  std::vector<TestLoad> h;
  test::feed_readings(*p, h, {load(400, 100), load(200, 10)});
  REQUIRE(p->next(h) == 300);
}

TEST_CASE("binsearch gives up when its bracket collapses") {
  auto p = test::mean_40ms_picker("binsearch", 100);
  std::vector<TestLoad> h{load(100, 10)};
  test::feed_readings(*p, h, {load(200, 50)});
  for (int i = 0; i < 40; ++i) {
    auto next = p->next(h);
    if (!next) {
      SUCCEED("collapsed after " << i << " halvings");
      return;
    }
    // The response jumps from 39.9 to 40.1 at 150/s: no load ever lands in the region.
    h.push_back(load(*next, *next < 150 ? 30 : 50));
  }
  FAIL("the bracket never collapsed");
}

TEST_CASE("an unknown policy is an input error naming the known ones") {
  PeakConfig peak;
  CHECK_THROWS_AS(make_picker("magic", peak, 50), InputError);
  CHECK_THROWS_WITH(make_picker("magic", peak, 50), Catch::Contains("binsearch"));
}
