#include <catch2/catch.hpp>

#include <vector>

#include "core/stats.hpp"

TEST_CASE("Student-t quantiles match published values") {
  // Two-sided 95%: t(0.975, 1) = 12.706, t(0.975, 9) = 2.262, t(0.975, 30) = 2.042; normal beyond 30.
  CHECK(wb::t_quantile(0.95, 1) == Approx(12.7062).epsilon(1e-4));
  CHECK(wb::t_quantile(0.95, 9) == Approx(2.2622).epsilon(1e-4));
  CHECK(wb::t_quantile(0.95, 30) == Approx(2.0423).epsilon(1e-4));
  CHECK(wb::t_quantile(0.95, 31) == Approx(1.95996).epsilon(1e-4));
  CHECK(wb::t_quantile(0.90, 4) == Approx(2.1318).epsilon(1e-4));
}

TEST_CASE("mean interval and accuracy follow 003 eq. 2") {
  std::vector<double> xs{10, 12, 11, 13, 9};
  auto ci = wb::mean_interval(xs, 0.95);
  CHECK(ci.mean == Approx(11));
  // s = sqrt(2.5), half = 2.7764 * s / sqrt(5)
  double half = 2.776445 * std::sqrt(2.5) / std::sqrt(5.0);
  CHECK(ci.half_width() == Approx(half).epsilon(1e-5));
  CHECK(ci.accuracy() == Approx(1 - half / 11).epsilon(1e-6));
  CHECK_THROWS(wb::mean_interval(std::vector<double>{1.0}, 0.95));
}
