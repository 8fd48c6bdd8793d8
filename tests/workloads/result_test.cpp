// LoadResult JSON: round trip, exact merge of several generators, and rejection of bad input.
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "workloads/result.hpp"

namespace {

wb::LoadResult make(std::uint64_t seed, std::size_t n, double rate) {
  std::mt19937_64 rng(seed);
  wb::LoadResult r;
  r.offered_rate = rate;
  r.duration_s = 10;
  r.sent = n + 3;
  r.completed = n;
  r.errors["closed"] = 2;
  r.timeouts = 1;
  r.late_sends = 5;
  r.intervals.resize(2);
  r.intervals[1].start_s = 5;
  for (std::size_t i = 0; i < n; ++i) {
    auto v = static_cast<std::uint64_t>(std::lognormal_distribution<double>(13, 1)(rng));
    r.histogram.record(v);
    auto& iv = r.intervals[i % 2];
    iv.histogram.record(v);
    ++iv.completed;
    ++iv.sent;
    ++iv.completions;
  }
  r.achieved_rate = static_cast<double>(n) / r.duration_s;
  return r;
}

}  // namespace

TEST_CASE("a result survives JSON text unchanged", "[result]") {
  auto r = make(1, 5000, 600);
  auto back = wb::parse_result(wb::to_json(r).dump());
  REQUIRE(back.offered_rate == r.offered_rate);
  REQUIRE(back.achieved_rate == r.achieved_rate);
  REQUIRE(back.sent == r.sent);
  REQUIRE(back.completed == r.completed);
  REQUIRE(back.errors == r.errors);
  REQUIRE(back.error_total() == 2);
  REQUIRE(back.timeouts == 1);
  REQUIRE(back.late_sends == 5);
  REQUIRE(back.histogram == r.histogram);
  REQUIRE(back.intervals.size() == 2);
  REQUIRE(back.intervals[1].histogram == r.intervals[1].histogram);
  auto j = wb::to_json(r);
  REQUIRE(j["errors"]["total"] == 2);
  REQUIRE(j["latency_ms"]["p99"].get<double>() == Approx(r.histogram.percentile_ns(99) / 1e6));
  for (const char* k : {"mean", "stddev", "p50", "p90", "p95", "p99", "p999", "max"})
    REQUIRE(j["latency_ms"].contains(k));
}

TEST_CASE("merging generators adds rates and counts and merges histograms exactly", "[result]") {
  auto a = make(1, 5000, 600);
  auto b = make(2, 3000, 400);
  auto m = wb::merge_results({wb::parse_result(wb::to_json(a)), wb::parse_result(wb::to_json(b))});
  REQUIRE(m.offered_rate == Approx(1000));
  REQUIRE(m.achieved_rate == Approx(800));
  REQUIRE(m.completed == 8000);
  REQUIRE(m.sent == 8006);
  REQUIRE(m.errors.at("closed") == 4);
  REQUIRE(m.timeouts == 2);
  REQUIRE(m.generators == 2);
  wb::LatencyHistogram both = a.histogram;
  both.merge(b.histogram);
  REQUIRE(m.histogram == both);
  REQUIRE(m.intervals.size() == 2);
  REQUIRE(m.intervals[0].completed == a.intervals[0].completed + b.intervals[0].completed);
  auto j = wb::to_json(m);
  REQUIRE(j["latency_ms"]["p99"].get<double>() == Approx(both.percentile_ns(99) / 1e6));
}

TEST_CASE("malformed results are rejected naming the field", "[result]") {
  auto good = wb::to_json(make(3, 100, 50));
  auto expect = [](const nlohmann::json& j, const std::string& needle) {
    try {
      wb::parse_result(j);
      FAIL("accepted");
    } catch (const wb::InputError& e) {
      REQUIRE_THAT(e.what(), Catch::Contains(needle));
    }
  };
  auto j = good;
  j.erase("sent");
  expect(j, "sent");
  j = good;
  j["completed"] = 99;
  expect(j, "completed");
  j = good;
  j["errors"]["total"] = 7;
  expect(j, "errors.total");
  j = good;
  j["timeouts"] = -1;
  expect(j, "timeouts");
  REQUIRE_THROWS_AS(wb::parse_result(std::string("{not json")), wb::InputError);
}

TEST_CASE("impossible figures are rejected naming the field", "[result]") {
  const auto good = wb::to_json(make(4, 100, 50));
  REQUIRE_NOTHROW(wb::parse_result(good));
  auto expect = [](const nlohmann::json& j, const std::string& needle) {
    try {
      wb::parse_result(j);
      FAIL("accepted: " << needle);
    } catch (const wb::InputError& e) {
      CHECK_THAT(e.what(), Catch::StartsWith(needle));
    }
  };
  auto with = [&](const std::string& pointer, const nlohmann::json& v) {
    auto j = good;
    j[nlohmann::json::json_pointer(pointer)] = v;
    return j;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect(with("/offered_rate", -100.0), "result.offered_rate: -100");
  expect(with("/offered_rate", nan), "result.offered_rate: nan");
  expect(with("/offered_rate", 1e15), "result.offered_rate: 1e+15");
  expect(with("/achieved_rate", -1.0), "result.achieved_rate: -1");
  expect(with("/achieved_rate", inf), "result.achieved_rate: inf");
  expect(with("/achieved_rate", 10.05), "result.achieved_rate: 10.05 times result.duration_s 10");
  expect(with("/duration_s", 0.0), "result.duration_s: 0");
  expect(with("/duration_s", -3.0), "result.duration_s: -3");
  expect(with("/generators", 0), "result.generators: 0");
  expect(with("/sent", 99), "result.completed: 100 exceeds result.sent 99");
  expect(with("/late_sends", 104), "result.late_sends: 104 exceeds result.sent 103");
  expect(with("/sent", 104), "result.sent: 104 exceeds completed + errors + timeouts (103)");
  expect(with("/histogram/sum", -2e12), "result.histogram.sum: -2e+12 is not a sum of latencies");
  expect(with("/histogram/sum", nan), "result.histogram.sum: nan");
  expect(with("/histogram/sum", 1e30), "result.histogram.sum: the mean 1e+28 ns lies outside [min, max]");
  expect(with("/histogram/sum_sq", 0.0), "result.histogram.sum_sq: 0 is impossible");
  expect(with("/histogram/sum_sq", inf), "result.histogram.sum_sq: inf");
  expect(with("/intervals/0/sent", 1), "result.intervals[0].completed: 50 exceeds its sent 1");
  expect(with("/intervals/1/start_s", 10.0), "result.intervals[1].start_s: 10 is not inside the window");
  auto over = with("/errors/closed", std::numeric_limits<std::uint64_t>::max());
  over["errors"]["timeout"] = 3;
  over["errors"]["total"] = 1;  // the wrapped sum
  expect(over, "result.errors.timeout: the counts overflow");
}

TEST_CASE("a result must match what its generator was asked for", "[result]") {
  wb::LoadResult r;  // 50/s for 10 s, every request answered in 2 ms
  r.offered_rate = 50;
  r.duration_s = 10;
  r.sent = r.completed = 500;
  r.achieved_rate = 50;
  r.histogram.record_n(2000000, 500);
  const wb::LoadRequest asked{50, 10, 2, 5};
  REQUIRE_NOTHROW(wb::check_result(r, asked));
  auto expect = [&](wb::LoadResult bad, const std::string& needle) {
    CHECK_THROWS_WITH(wb::check_result(bad, asked), Catch::StartsWith(needle));
  };
  auto changed = [&](auto edit) {
    wb::LoadResult c = r;
    edit(c);
    return c;
  };
  // The same window with `n` requests sent, every one answered in 2 ms, `achieved` per second.
  auto answered = [&](std::uint64_t n, double achieved) {
    return changed([&](auto& c) {
      c.sent = c.completed = n;
      c.achieved_rate = achieved;
      c.histogram.reset();
      c.histogram.record_n(2000000, n);
    });
  };
  expect(changed([](auto& c) { c.offered_rate = 60; }),
         "result.offered_rate: 60 is not the rate asked for, 50");
  expect(changed([](auto& c) { c.duration_s = 20; }), "result.duration_s: 20 is not the duration asked for");
  // 500 ± (10 x 22.4 + 20): 200 and 800 requests are not what 50/s for 10 s offers.
  expect(answered(200, 20), "result.sent: completed + errors + timeouts is 200");
  expect(answered(800, 80), "result.sent: completed + errors + timeouts is 800");
  // 730 responses inside the window: more than 500 sent plus about 100 from the warm-up.
  expect(changed([](auto& c) { c.achieved_rate = 73; }), "result.achieved_rate: 73 counts more responses");
  expect(changed([](auto& c) {
           c.histogram.record(6000000000);
           c.sent = c.completed = 501;
         }),
         "result.histogram.max: 6000 ms exceeds");
  // Poisson noise and answers to warm-up requests inside the window are possible.
  REQUIRE_NOTHROW(wb::check_result(answered(540, 60), asked));
}
