// LatencyHistogram against exact percentiles of random data, merge, and the compact encoding.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "workloads/histogram.hpp"

namespace {

// Nearest-rank percentile, the definition histogram.hpp documents.
std::uint64_t exact_percentile(std::vector<std::uint64_t> v, double p) {
  std::sort(v.begin(), v.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  rank = std::clamp<std::size_t>(rank, 1, v.size());
  return v[rank - 1];
}

double rel_err(std::uint64_t got, std::uint64_t want) {
  return std::abs(static_cast<double>(got) - static_cast<double>(want)) / static_cast<double>(want);
}

// Latencies between 1 µs and 100 s from several shapes.
std::vector<std::uint64_t> draw(const std::string& shape, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    double ns = 0;
    if (shape == "uniform") {
      ns = std::uniform_real_distribution<double>(1e3, 1e8)(rng);
    } else if (shape == "lognormal") {
      ns = std::lognormal_distribution<double>(std::log(2e5), 1.5)(rng);
    } else if (shape == "exponential") {
      ns = std::exponential_distribution<double>(1.0 / 5e6)(rng);
    } else if (shape == "loguniform") {  // every decade from 1 µs to 100 s equally likely
      ns = std::pow(10.0, std::uniform_real_distribution<double>(3, 11)(rng));
    } else {  // bimodal: fast hits and a stalled tail (like a 1 s stall)
      ns = std::bernoulli_distribution(0.9)(rng) ? std::normal_distribution<double>(2e5, 2e4)(rng)
                                                 : std::uniform_real_distribution<double>(1e8, 1e9)(rng);
    }
    v.push_back(static_cast<std::uint64_t>(std::clamp(ns, 1e3, 1e11)));
  }
  return v;
}

const double kPercentiles[] = {0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};

}  // namespace

TEST_CASE("bucket ranges tile the value range with width at most 1/128 of their values", "[histogram]") {
  using H = wb::LatencyHistogram;
  for (std::size_t i = 1; i < H::bucket_count(); ++i) {
    REQUIRE(H::bucket_low(i) == H::bucket_high(i - 1) + 1);
    REQUIRE(H::bucket_index(H::bucket_low(i)) == i);
    REQUIRE(H::bucket_index(H::bucket_high(i)) == i);
    if (H::bucket_low(i) >= 256) {
      double width = static_cast<double>(H::bucket_high(i) - H::bucket_low(i) + 1);
      REQUIRE(width / static_cast<double>(H::bucket_low(i)) <= 1.0 / 128 + 1e-12);
    }
  }
  REQUIRE(H::bucket_high(H::bucket_count() - 1) == H::kMaxValueNs);
  REQUIRE(H::bucket_index(100'000'000'000ull) < H::bucket_count());  // 100 s is inside the range
}

TEST_CASE("percentiles are within 1% of the exact percentiles of random data", "[histogram]") {
  for (std::string shape : {"uniform", "lognormal", "exponential", "loguniform", "bimodal"}) {
    auto data = draw(shape, 200'000, 42);
    wb::LatencyHistogram h;
    for (auto v : data) h.record(v);
    INFO(shape);
    REQUIRE(h.count() == data.size());
    for (double p : kPercentiles) {
      INFO("p" << p);
      REQUIRE(rel_err(h.percentile_ns(p), exact_percentile(data, p)) <= 0.01);
    }
    REQUIRE(h.min_ns() == *std::min_element(data.begin(), data.end()));
    REQUIRE(h.max_ns() == *std::max_element(data.begin(), data.end()));
    double mean = 0;
    for (auto v : data) mean += static_cast<double>(v);
    mean /= static_cast<double>(data.size());
    double var = 0;
    for (auto v : data) var += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
    double sd = std::sqrt(var / static_cast<double>(data.size()));
    REQUIRE(h.mean_ns() == Approx(mean).epsilon(1e-9));
    REQUIRE(h.stddev_ns() == Approx(sd).epsilon(1e-6));
  }
}

TEST_CASE("single values from 1 us to 100 s are reported within 1%", "[histogram]") {
  for (double ns = 1e3; ns <= 1e11; ns *= 1.37) {
    wb::LatencyHistogram h;
    h.record(static_cast<std::uint64_t>(ns));
    h.record(static_cast<std::uint64_t>(ns * 1.004));
    h.record(static_cast<std::uint64_t>(ns * 1.0071));
    REQUIRE(rel_err(h.percentile_ns(50), static_cast<std::uint64_t>(ns * 1.004)) <= 0.01);
  }
}

TEST_CASE("merge equals the histogram of the union, also for percentiles", "[histogram]") {
  auto a = draw("lognormal", 50'000, 1);
  auto b = draw("bimodal", 30'000, 2);
  auto c = draw("loguniform", 20'000, 3);
  wb::LatencyHistogram ha, hb, hc, all;
  for (auto v : a) ha.record(v), all.record(v);
  for (auto v : b) hb.record(v), all.record(v);
  for (auto v : c) hc.record(v), all.record(v);
  wb::LatencyHistogram merged;
  merged.merge(hc);
  merged.merge(ha);
  merged.merge(hb);
  REQUIRE(merged == all);
  std::vector<std::uint64_t> u = a;
  u.insert(u.end(), b.begin(), b.end());
  u.insert(u.end(), c.begin(), c.end());
  for (double p : kPercentiles) {
    INFO("p" << p);
    REQUIRE(merged.percentile_ns(p) == all.percentile_ns(p));
    REQUIRE(rel_err(merged.percentile_ns(p), exact_percentile(u, p)) <= 0.01);
  }
  REQUIRE(merged.mean_ns() == Approx(all.mean_ns()).epsilon(1e-12));
}

TEST_CASE("the compact encoding round-trips exactly and stays small", "[histogram]") {
  auto data = draw("lognormal", 100'000, 7);
  wb::LatencyHistogram h;
  for (auto v : data) h.record(v);
  h.record(wb::LatencyHistogram::kMaxValueNs + 12345);  // clamped bucket, exact max
  auto j = h.to_json();
  auto text = j.dump();
  auto back = wb::LatencyHistogram::from_json(nlohmann::json::parse(text));
  REQUIRE(back == h);
  REQUIRE(back.max_ns() == wb::LatencyHistogram::kMaxValueNs + 12345);
  REQUIRE(back.percentile_ns(99) == h.percentile_ns(99));
  REQUIRE(back.mean_ns() == Approx(h.mean_ns()).epsilon(1e-12));
  REQUIRE(text.size() < 8000);  // ~1,000 non-empty buckets, a few bytes each

  wb::LatencyHistogram empty;
  auto e = wb::LatencyHistogram::from_json(empty.to_json());
  REQUIRE(e.count() == 0);
  REQUIRE(e.percentile_ns(99) == 0);
}

TEST_CASE("malformed encodings are rejected with the field named", "[histogram]") {
  wb::LatencyHistogram h;
  h.record(1000);
  h.record(5000);
  auto good = h.to_json();
  auto expect_error = [&](nlohmann::json j, const std::string& needle) {
    try {
      wb::LatencyHistogram::from_json(j);
      FAIL("accepted " << j.dump());
    } catch (const wb::InputError& e) {
      REQUIRE_THAT(e.what(), Catch::Contains(needle));
    }
  };
  auto j = good;
  j["encoding"] = "hdr-v2";
  expect_error(j, "encoding");
  j = good;
  j["count"] = 3;
  expect_error(j, "count");
  j = good;
  j["buckets"] = "!!!!";
  expect_error(j, "buckets");
  j = good;
  j["buckets"] = "/////w==";  // varint that never ends
  expect_error(j, "buckets");
  j = good;
  j.erase("min");
  expect_error(j, "min");
  j = good;
  j["precision_bits"] = 7;
  expect_error(j, "precision_bits");
}

// from_json checked only that min's and max's buckets were non-empty, let the bucket counts wrap
// past 2^64 onto `count`, and never looked at the sums: a generator's result could carry values
// below its min or above its max, or a mean latency outside both (found by fuzz/histogram_fuzzer).
TEST_CASE("a histogram no sequence of records produces is rejected", "[histogram]") {
  wb::LatencyHistogram h;
  h.record(1000);
  h.record(5000);
  const auto good = h.to_json();
  REQUIRE(wb::LatencyHistogram::from_json(good) == h);
  auto rejected = [](const nlohmann::json& j, const std::string& needle) {
    INFO(j.dump());
    REQUIRE_THROWS_WITH(wb::LatencyHistogram::from_json(j), Catch::Contains(needle));
  };
  auto j = good;
  j["min"] = 5000;  // a non-empty bucket below min
  rejected(j, "histogram.min/max");
  j = good;
  j["max"] = 1000;  // a non-empty bucket above max
  rejected(j, "histogram.min/max");
  for (double sum : {-1.0, 0.0, 1999.0, 10001.0, 1e300}) {
    j = good;
    j["sum"] = sum;
    rejected(j, "histogram.sum");
  }
  j = good;
  j["sum_sq"] = 1e300;
  rejected(j, "histogram.sum_sq");
  j = wb::LatencyHistogram().to_json();
  j["max"] = 7;
  rejected(j, "empty histogram");

  // Two buckets of 2^63 and 2^63 + 2 values: count_ wraps to 2, and so did the decoder's sum.
  wb::LatencyHistogram wrapped;
  wrapped.record_n(1000, std::uint64_t{1} << 63);
  wrapped.record_n(5000, (std::uint64_t{1} << 63) + 2);
  REQUIRE(wrapped.count() == 2);
  rejected(wrapped.to_json(), "past 2^64");
}
