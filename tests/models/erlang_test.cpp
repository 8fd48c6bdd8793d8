#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "ctmc.hpp"
#include "models/erlang.hpp"

// Erlang C against a printed worked example (Bronson 1982, below; the only one whose inputs and
// printed results could be read from an available source), and against independent exact
// computations: closed forms for one and two servers, and the M/M/c birth-death chain solved
// numerically from its balance equations (tests/models/ctmc.cpp, Eigen).

TEST_CASE("M/M/c means reproduce Bronson 1982, Schaum's Outline of Operations Research, 24.6") {
  // R. Bronson, Schaum's Outline of Theory and Problems of Operations Research, McGraw-Hill 1982,
  // item 24.6 (a three-server M/M/3 queue), as summarized with its inputs and printed results on
  // M. Casquilho's M/M/s calculator page (http://web.ist.utl.pt/mcasquilho/compute/or/Fx-queuevars.php,
  // "Examples [Bronson, 1982]"); that page gives the item number, not a page. s = 3 servers,
  // arrivals 300 per year, mean service 2 days (μ = 182.5 per year). Printed: L_q = 0.352,
  // L = 1.996, W_q = 0.001175 yr (0.43 d), W = 0.006654 yr (2.429 d).
  wb::MmcResult m = wb::mmc(3, 300.0, 1.0 / 182.5);
  REQUIRE(m.stable);
  CHECK(m.queue_length == Approx(0.352).margin(0.0005));
  CHECK(m.in_system == Approx(1.996).margin(0.0005));
  CHECK(m.wait == Approx(0.001175).margin(0.0000005));
  CHECK(m.response == Approx(0.006654).margin(0.0000005));
  CHECK(m.wait * 365 == Approx(0.43).margin(0.005));
  CHECK(m.response * 365 == Approx(2.429).margin(0.0005));
}

TEST_CASE("Erlang C matches its closed forms for one and two servers") {
  for (double a : {0.1, 0.5, 0.9, 0.99}) {
    CHECK(wb::erlang_c(1, a) == Approx(a).epsilon(1e-12));  // M/M/1: P(wait) = ρ
  }
  for (double a : {0.2, 1.0, 1.5, 1.95}) {
    // M/M/2: P(wait) = 2ρ²/(1+ρ) with ρ = a/2, i.e. a²/(2+a).
    CHECK(wb::erlang_c(2, a) == Approx(a * a / (2 + a)).epsilon(1e-12));
  }
}

TEST_CASE("Erlang B recursion matches the defining sum") {
  for (int c : {1, 3, 8, 20}) {
    for (double a : {0.5, 4.0, 15.0}) {
      double term = 1, sum = 1;
      for (int k = 1; k <= c; ++k) {
        term *= a / k;
        sum += term;
      }
      CHECK(wb::erlang_b(c, a) == Approx(term / sum).epsilon(1e-12));
    }
  }
}

TEST_CASE("M/M/c means match the birth-death chain solved by Eigen") {
  struct Case {
    int c;
    double lambda, s;
  };
  for (auto k :
       {Case{1, 0.7, 1.0}, Case{3, 2.1, 1.0}, Case{4, 30.0, 0.1}, Case{8, 0.5, 12.0}, Case{16, 1.0, 14.0}}) {
    INFO("c=" << k.c << " lambda=" << k.lambda << " S=" << k.s);
    auto pi = wb::test::mmc_distribution(k.c, k.lambda, k.s, 600);
    double p_wait = 0, lq = 0, l = 0;
    for (std::size_t n = 0; n < pi.size(); ++n) {
      if (static_cast<int>(n) >= k.c) {
        p_wait += pi[n];
        lq += static_cast<double>(static_cast<int>(n) - k.c) * pi[n];
      }
      l += static_cast<double>(n) * pi[n];
    }
    wb::MmcResult m = wb::mmc(k.c, k.lambda, k.s);
    REQUIRE(m.stable);
    CHECK(m.utilization == Approx(k.lambda * k.s / k.c));
    CHECK(m.p_wait == Approx(p_wait).epsilon(1e-9));
    CHECK(m.queue_length == Approx(lq).epsilon(1e-8));
    CHECK(m.in_system == Approx(l).epsilon(1e-8));
    CHECK(m.wait == Approx(lq / k.lambda).epsilon(1e-8));  // Little's law on the chain
    CHECK(m.response == Approx(l / k.lambda).epsilon(1e-8));
  }
}

TEST_CASE("Erlang C stays finite and exact for hundreds of servers") {
  // a^c/c! overflows a double beyond c ≈ 170; the recursion must not.
  double c = wb::erlang_c(400, 380.0);
  CHECK(c > 0);
  CHECK(c < 1);
  auto pi = wb::test::mmc_distribution(400, 380.0, 1.0, 900);
  double p_wait = 0;
  for (std::size_t n = 400; n < pi.size(); ++n) p_wait += pi[n];
  CHECK(c == Approx(p_wait).epsilon(1e-7));
}

TEST_CASE("an overloaded M/M/c is reported unstable, not as a number") {
  wb::MmcResult m = wb::mmc(2, 3.0, 1.0);
  CHECK_FALSE(m.stable);
  CHECK(m.p_wait == 1);
  CHECK(std::isinf(m.response));
  CHECK(wb::erlang_c(2, 2.0) == 1);
  CHECK_THROWS_AS(wb::mmc(0, 1.0, 1.0), wb::Error);
  CHECK_THROWS_AS(wb::mmc(1, -1.0, 1.0), wb::Error);
}

TEST_CASE(
    "Allen-Cunneen reduces to Pollaczek-Khinchine for one server and to M/M/c for exponential service") {
  double lambda = 0.8, s = 1.0;
  for (double scv : {0.0, 0.5, 1.44, 4.0}) {
    // P-K: W_q = λ·E[S²] / (2(1−ρ)), E[S²] = S²(1 + c_s²).
    double pk = lambda * s * s * (1 + scv) / (2 * (1 - lambda * s));
    CHECK(wb::allen_cunneen_wait(1, lambda, s, scv) == Approx(pk).epsilon(1e-12));
  }
  CHECK(wb::allen_cunneen_wait(4, 3.0, 1.0, 1.0) == Approx(wb::mmc(4, 3.0, 1.0).wait).epsilon(1e-12));
  CHECK(std::isinf(wb::allen_cunneen_wait(1, 2.0, 1.0, 1.0)));
}

namespace {

// The recurrence B(k) = a·B(k−1)/(k + a·B(k−1)) over every k, written here apart from the
// production code: exact to a few ulps for any c, in O(c) steps.
double erlang_b_by_recurrence(int c, double a) {
  double b = 1;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  return b;
}

}  // namespace

TEST_CASE("Erlang B and C above 1000 servers agree with the full recurrence to 1e-12") {
  // Every regime of erlang_b: the incomplete gamma function (loads below c + 30·sqrt(c), near c
  // above all) and the series (loads above that), on both sides of the boundaries.
  int compared = 0;
  for (int c : {1001, 1500, 4000, 20000, 100000}) {
    const double root = std::sqrt(c);
    std::vector<double> loads;
    for (double f : {0.01, 0.3, 0.8, 0.95, 0.99, 1.0, 1.01, 1.05, 1.5, 2.0, 10.0}) loads.push_back(f * c);
    for (double d : {-40.0, -5.0, -1.0, -0.1, 0.1, 1.0, 5.0, 29.9, 30.1, 60.0}) {
      if (c + d * root > 0) loads.push_back(c + d * root);
    }
    for (double a : loads) {
      double exact = erlang_b_by_recurrence(c, a);
      INFO("c = " << c << ", a = " << a << ": recurrence " << exact);
      if (exact < 1e-300) {
        CHECK(wb::erlang_b(c, a) < 1e-290);  // at or below the smallest normal double
        continue;
      }
      ++compared;
      CHECK(wb::erlang_b(c, a) == Approx(exact).epsilon(1e-12));
      if (a < c) {
        double exact_c = c * exact / (c - a * (1 - exact));
        CHECK(wb::erlang_c(c, a) == Approx(exact_c).epsilon(1e-12));
      }
    }
  }
  CHECK(compared > 80);
}

TEST_CASE("Erlang B for two billion servers: the known limits, no loop over the servers") {
  const int c = 2000000000;
  // At a = c, P(X = c)/P(X <= c) for X ~ Poisson(c) is sqrt(2/(πc)) − 4/(3πc) + O(c^-1.5)
  // (the density 1/sqrt(2πc), the distribution function 1/2 + 2/(3·sqrt(2πc))).
  const double pi = 3.14159265358979323846;
  CHECK(wb::erlang_b(c, c) == Approx(std::sqrt(2 / (pi * c)) - 4 / (3 * pi * c)).epsilon(1e-8));
  // Far below c nobody is ever blocked or waits: the station is a delay.
  CHECK(wb::erlang_b(c, 1e6) == 0);
  wb::MmcResult m = wb::mmc(c, 1000.0, 2.0);
  REQUIRE(m.stable);
  CHECK(m.p_wait == 0);
  CHECK(m.response == 2.0);
  // Far above c almost everyone is blocked: B = 1 − c/a + O(c/a²) (carried load c·(1 − ...)).
  CHECK(wb::erlang_b(c, 1e15) == Approx(1 - c / 1e15).epsilon(1e-12));
  CHECK(wb::erlang_c(c, 3e9) == 1);
}
