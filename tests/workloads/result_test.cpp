// LoadResult JSON: round trip, exact merge of several generators, and rejection of bad input.
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
