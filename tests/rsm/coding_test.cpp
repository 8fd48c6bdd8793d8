#include <cmath>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "rsm/coding.hpp"

TEST_CASE("linear coding maps min and max to -1 and +1 and is invertible", "[rsm][coding]") {
  const wb::Coding disks = wb::Coding::from_levels({3, 1, 4, 2});
  CHECK(disks.min() == 1);
  CHECK(disks.max() == 4);
  CHECK(disks.code(1) == Approx(-1.0));
  CHECK(disks.code(4) == Approx(1.0));
  CHECK(disks.code(2.5) == Approx(0.0).margin(1e-15));
  CHECK(disks.code(2) == Approx(-1.0 / 3.0));
  CHECK(disks.code(7) == Approx(3.0));  // extrapolation is allowed, not clamped
  for (double x : {1.0, 1.7, 2.0, 3.0, 4.0, 9.5}) CHECK(disks.uncode(disks.code(x)) == Approx(x));
}

TEST_CASE("log coding spaces geometric levels evenly", "[rsm][coding]") {
  const wb::Coding threads = wb::Coding::from_levels({1, 2, 4, 8, 16, 32, 64, 100}, wb::CodingScale::kLog);
  CHECK(threads.scale() == wb::CodingScale::kLog);
  CHECK(threads.code(1) == Approx(-1.0));
  CHECK(threads.code(100) == Approx(1.0));
  CHECK(threads.code(10) == Approx(0.0).margin(1e-15));  // geometric mean of 1 and 100
  // Equal ratios give equal steps: 1->2 and 32->64 are both log(2)/log(100) * 2 apart.
  const double step = 2 * std::log(2.0) / std::log(100.0);
  CHECK(threads.code(2) - threads.code(1) == Approx(step));
  CHECK(threads.code(64) - threads.code(32) == Approx(step));
  for (double x : {1.0, 3.0, 64.0, 100.0}) CHECK(threads.uncode(threads.code(x)) == Approx(x));
}

TEST_CASE("coding rejects degenerate ranges and non-positive log values", "[rsm][coding]") {
  CHECK_THROWS_AS(wb::Coding(2, 2), wb::InputError);
  CHECK_THROWS_AS(wb::Coding(3, 1), wb::InputError);
  CHECK_THROWS_AS(wb::Coding(0, 8, wb::CodingScale::kLog), wb::InputError);
  CHECK_THROWS_AS(wb::Coding::from_levels({5}), wb::InputError);
  CHECK_THROWS_AS(wb::Coding::from_levels({5, 5}), wb::InputError);
  CHECK_THROWS_AS(wb::Coding::from_levels({}), wb::InputError);
  const wb::Coding c(1, 8, wb::CodingScale::kLog);
  CHECK_THROWS_AS(c.code(0), wb::InputError);
  CHECK_THROWS_AS(c.code(-1), wb::InputError);
}

TEST_CASE("coding scale names round-trip", "[rsm][coding]") {
  CHECK(wb::parse_coding_scale("linear") == wb::CodingScale::kLinear);
  CHECK(wb::parse_coding_scale("log") == wb::CodingScale::kLog);
  CHECK(std::string(wb::to_string(wb::CodingScale::kLog)) == "log");
  CHECK_THROWS_AS(wb::parse_coding_scale("sqrt"), wb::InputError);
}

TEST_CASE("code_points codes each column with its own coding", "[rsm][coding]") {
  const std::vector<wb::Coding> codings{wb::Coding(1, 4), wb::Coding(1, 64, wb::CodingScale::kLog)};
  Eigen::MatrixXd raw(3, 2);
  raw << 1, 1, 4, 64, 2.5, 8;
  const Eigen::MatrixXd coded = wb::code_points(raw, codings);
  CHECK(coded(0, 0) == Approx(-1));
  CHECK(coded(0, 1) == Approx(-1));
  CHECK(coded(1, 0) == Approx(1));
  CHECK(coded(1, 1) == Approx(1));
  CHECK(coded(2, 0) == Approx(0).margin(1e-15));
  CHECK(coded(2, 1) == Approx(0).margin(1e-15));  // 8 = sqrt(64)
  CHECK(wb::uncode_points(coded, codings).isApprox(raw, 1e-12));
  CHECK_THROWS_AS(wb::code_points(raw, {wb::Coding(1, 4)}), wb::InputError);
}
