// check_trial: the last gate before a trial reaches a search or the store.
#include "core/trial.hpp"

#include <catch2/catch.hpp>

#include <limits>

#include "core/error.hpp"

namespace {

wb::TrialResult possible() {
  wb::TrialResult t;
  t.offered_rate = 100;
  t.achieved_rate = 99;
  t.runlength_s = 10;
  t.sent = 1000;
  t.completed = 990;
  t.errors = 10;
  t.mean_ms = 4;
  t.p50_ms = 3;
  t.p90_ms = 7;
  t.p95_ms = 9;
  t.p99_ms = 15;
  t.max_ms = 40;
  t.cost_s = 12;
  t.stage_ms = {{"disk", 2.5}};
  return t;
}

}  // namespace

TEST_CASE("check_trial accepts a possible trial and names the field of an impossible one") {
  REQUIRE_NOTHROW(wb::check_trial(possible()));
  wb::TrialResult empty = possible();
  empty.completed = 0;
  empty.achieved_rate = empty.mean_ms = empty.p50_ms = empty.p90_ms = empty.p95_ms = empty.p99_ms =
      empty.max_ms = 0;
  REQUIRE_NOTHROW(wb::check_trial(empty));

  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto expect = [](wb::TrialResult t, const char* start) {
    CHECK_THROWS_WITH(wb::check_trial(t), Catch::StartsWith(start));
  };
  auto t = possible();
  t.mean_ms = -20000;
  expect(t, "trial.mean_ms: -20000");
  t = possible();
  t.offered_rate = -5;
  expect(t, "trial.offered_rate: -5");
  t = possible();
  t.runlength_s = 0;
  expect(t, "trial.runlength_s: 0");
  t = possible();
  t.achieved_rate = nan;
  expect(t, "trial.achieved_rate: nan");
  t = possible();
  t.completed = 1001;
  expect(t, "trial.sent: 1000 is less than completed (1001)");
  t = possible();
  t.p99_ms = 50;
  expect(t, "trial.p50_ms: 3 starts percentiles that are not in order");
  t = possible();
  t.mean_ms = 41;
  expect(t, "trial.mean_ms: 41 exceeds max_ms");
  t = possible();
  t.stage_ms["disk"] = -1;
  expect(t, "trial.stage_ms.disk: -1");
  t = possible();
  t.cost_s = std::numeric_limits<double>::infinity();
  expect(t, "trial.cost_s: inf");
}
