#include "sut/service_time.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "core/error.hpp"

using namespace wb::sut;

namespace {
struct Moments {
  double mean = 0;
  double cv = 0;
};
Moments moments(const ServiceTime& t, int n, std::uint64_t seed) {
  SplitMix64 rng(seed);
  double sum = 0;
  double sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = draw_ms(t, rng);
    REQUIRE(x >= 0);
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n;
  const double var = sum2 / n - mean * mean;
  return {mean, std::sqrt(var) / mean};
}
}  // namespace

TEST_CASE("service times: each distribution has the asked mean and spread", "[sut][unit]") {
  const Moments e = moments({Distribution::kExponential, 10.0, 1.0}, 200000, 1);
  CHECK(e.mean == Approx(10.0).epsilon(0.01));
  CHECK(e.cv == Approx(1.0).epsilon(0.02));
  const Moments l = moments({Distribution::kLognormal, 5.0, 0.5}, 200000, 2);
  CHECK(l.mean == Approx(5.0).epsilon(0.01));
  CHECK(l.cv == Approx(0.5).epsilon(0.03));
  const Moments d = moments({Distribution::kDeterministic, 7.0, 1.0}, 1000, 3);
  CHECK(d.mean == Approx(7.0).epsilon(1e-12));
  CHECK(d.cv < 1e-6);
  const Moments z = moments({Distribution::kExponential, 0.0, 1.0}, 100, 4);
  CHECK(z.mean == 0.0);
}

TEST_CASE("service times: a (seed, stream) pair always gives the same draws, other streams differ",
          "[sut][unit]") {
  const ServiceTime t{Distribution::kExponential, 3.0, 1.0};
  SplitMix64 a(42, 7);
  SplitMix64 b(42, 7);
  SplitMix64 c(42, 8);
  int same_as_c = 0;
  for (int i = 0; i < 100; ++i) {
    const double x = draw_ms(t, a);
    CHECK(x == draw_ms(t, b));
    if (x == draw_ms(t, c)) ++same_as_c;
  }
  CHECK(same_as_c == 0);
  for (int i = 0; i < 100000; ++i) {
    const double u = a.uniform();
    REQUIRE(u > 0.0);
    REQUIRE(u < 1.0);
  }
}

TEST_CASE("service times: distribution names", "[sut][unit]") {
  CHECK(parse_distribution("lognormal", "--x") == Distribution::kLognormal);
  CHECK(to_string(parse_distribution("deterministic", "--x")) == "deterministic");
  CHECK_THROWS_AS(parse_distribution("uniform", "--disk-dist"), wb::InputError);
}
