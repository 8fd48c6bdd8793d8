// The Gaussian KDE of models/kde.hpp [004 "Kernel Density Estimation"]: bandwidth rules against values
// computed by hand, the binned density against the exact sum, and the modes of known mixtures.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "models/kde.hpp"

namespace {

// n draws from a mixture of normals {weight, mean, sd}, with a fixed seed.
struct Component {
  double weight, mean, sd;
};

std::vector<double> mixture(const std::vector<Component>& parts, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> weights;
  for (const Component& c : parts) weights.push_back(c.weight);
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  std::normal_distribution<double> z(0, 1);
  std::vector<double> xs(n);
  for (double& x : xs) {
    const Component& c = parts[pick(rng)];
    x = c.mean + c.sd * z(rng);
  }
  return xs;
}

}  // namespace

TEST_CASE("Silverman's rule matches hand-computed values") {
  // 1..10: sd = 3.0276504 < IQR/1.3489795 = 4.5/1.3489795, so h = 0.9 · sd · 10^(−1/5).
  std::vector<double> even{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  CHECK(wb::silverman_bandwidth(even) == Approx(1.719286404692283).epsilon(1e-12));
  // An outlier inflates sd to 30.15 but not the IQR (type 7: 7.75 − 3.25), which then binds.
  std::vector<double> tailed{1, 2, 3, 4, 5, 6, 7, 8, 9, 100};
  CHECK(wb::silverman_bandwidth(tailed) == Approx(1.894303986385194).epsilon(1e-12));
  std::vector<double> one{3.0};
  CHECK(wb::silverman_bandwidth(one) == 0.0);
}

TEST_CASE("the plug-in bandwidth approaches the normal's AMISE optimum and scales with the data") {
  std::vector<double> xs = mixture({{1, 0, 1}}, 100000, 7);
  // For a normal with sd 1 the AMISE-optimal h is (4/3)^(1/5) n^(−1/5) = 1.0592 · 0.1.
  double h = wb::plugin_bandwidth(xs);
  CHECK(h == Approx(std::pow(4.0 / 3.0, 0.2) * 0.1).epsilon(0.05));
  std::vector<double> moved(xs.size());
  std::transform(xs.begin(), xs.end(), moved.begin(), [](double x) { return 3 * x + 7; });
  CHECK(wb::plugin_bandwidth(moved) == Approx(3 * h).epsilon(1e-6));
}

TEST_CASE("the plug-in bandwidth is far below Silverman's on two separated modes") {
  // Silverman's normal reference sees one wide normal (sd 3.2); the modes each have sd 1, so the
  // AMISE optimum is about 0.43 of Silverman's value.
  std::vector<double> xs = mixture({{0.5, 0, 1}, {0.5, 6, 1}}, 20000, 11);
  double plug = wb::plugin_bandwidth(xs);
  double silverman = wb::silverman_bandwidth(xs);
  CHECK(plug < 0.6 * silverman);
  CHECK(plug > 0.3 * silverman);
}

TEST_CASE("the binned density matches the exact sum and integrates to one") {
  std::vector<double> xs = mixture({{0.7, 0, 1}, {0.3, 4, 0.5}}, 3000, 3);
  wb::Kde kde = wb::estimate_density(xs);
  REQUIRE(kde.bandwidth > 0);
  std::vector<double> at;
  for (int i = 0; i <= 200; ++i) at.push_back(-4 + 10.0 * i / 200);
  std::vector<double> exact = wb::exact_density(xs, kde.bandwidth, at);
  double peak = *std::max_element(exact.begin(), exact.end());
  double worst = 0;
  for (std::size_t i = 0; i < at.size(); ++i) worst = std::max(worst, std::abs(kde.at(at[i]) - exact[i]));
  CHECK(worst < 2e-3 * peak);
  double integral = 0;
  for (double f : kde.density) integral += f * kde.grid_step;
  CHECK(integral == Approx(1.0).epsilon(1e-3));
}

TEST_CASE("a bimodal sample has two modes and a boundary between them") {
  std::vector<double> xs = mixture({{0.6, 0, 1}, {0.4, 5, 0.7}}, 20000, 5);
  wb::Kde kde = wb::estimate_density(xs);
  REQUIRE(kde.modes.size() == 2);
  CHECK(kde.modes[0] == Approx(0).margin(0.15));
  CHECK(kde.modes[1] == Approx(5).margin(0.15));
  REQUIRE(kde.boundaries.size() == 1);
  CHECK(kde.boundaries[0] > 2.0);
  CHECK(kde.boundaries[0] < 4.0);
  CHECK(kde.cluster_of(-1) == 0);
  CHECK(kde.cluster_of(6) == 1);
}

TEST_CASE("a trimodal sample has three modes with boundaries near the midpoints") {
  std::vector<double> xs = mixture({{0.5, 0, 0.5}, {0.3, 3, 0.5}, {0.2, 6, 0.5}}, 30000, 9);
  wb::Kde kde = wb::estimate_density(xs);
  REQUIRE(kde.modes.size() == 3);
  CHECK(kde.modes[0] == Approx(0).margin(0.15));
  CHECK(kde.modes[1] == Approx(3).margin(0.15));
  CHECK(kde.modes[2] == Approx(6).margin(0.15));
  REQUIRE(kde.boundaries.size() == 2);
  CHECK(kde.boundaries[0] == Approx(1.5).margin(0.5));
  CHECK(kde.boundaries[1] == Approx(4.5).margin(0.5));
}

TEST_CASE("Silverman's rule merges close modes that the plug-in bandwidth separates") {
  // Equal normals 2.6 sd apart with a third far away: the far one widens Silverman's reference.
  std::vector<double> xs = mixture({{0.3, 0, 1}, {0.3, 2.6, 1}, {0.4, 20, 1}}, 20000, 13);
  wb::KdeOptions silverman;
  silverman.rule = wb::BandwidthRule::kSilverman;
  CHECK(wb::estimate_density(xs, silverman).modes.size() == 2);
  CHECK(wb::estimate_density(xs).modes.size() == 3);
}

TEST_CASE("a normal sample has exactly one mode") {
  std::vector<double> xs = mixture({{1, 10, 2}}, 100000, 17);
  wb::Kde kde = wb::estimate_density(xs);
  REQUIRE(kde.modes.size() == 1);
  CHECK(kde.modes[0] == Approx(10).margin(0.1));
  CHECK(kde.boundaries.empty());
}

TEST_CASE("far-apart clusters get their boundary in the middle of the empty gap") {
  std::vector<double> xs = mixture({{0.5, 0, 0.1}, {0.5, 10, 0.1}}, 4000, 19);
  wb::Kde kde = wb::estimate_density(xs);
  REQUIRE(kde.boundaries.size() == 1);
  CHECK(kde.boundaries[0] == Approx(5).margin(0.5));
}

TEST_CASE("degenerate samples: a point mass, an empty sample, a NaN") {
  std::vector<double> same(50, 2.5);
  wb::Kde kde = wb::estimate_density(same);
  CHECK(kde.bandwidth == 0);
  REQUIRE(kde.modes.size() == 1);
  CHECK(kde.modes[0] == 2.5);
  CHECK(kde.cluster_of(2.5) == 0);
  std::vector<double> empty;
  CHECK_THROWS_AS(wb::estimate_density(empty), wb::InputError);
  std::vector<double> nan{1.0, std::numeric_limits<double>::quiet_NaN()};
  CHECK_THROWS_AS(wb::estimate_density(nan), wb::InputError);
}

TEST_CASE("sampling bumps of small normal samples are not modes, but a real second mode is") {
  // At the plug-in bandwidth a sample of 200 often shows two local maxima; the dip test drops them.
  wb::KdeOptions raw;
  raw.mode_confidence = 0;
  int bumpy = 0;
  for (unsigned seed = 1; seed <= 50; ++seed) {
    std::vector<double> xs = mixture({{1, 0, 1}}, 200, seed);
    bumpy += wb::estimate_density(xs, raw).modes.size() > 1 ? 1 : 0;
    CHECK(wb::estimate_density(xs).modes.size() == 1);
  }
  CHECK(bumpy >= 5);
  std::vector<double> two = mixture({{0.5, 0, 1}, {0.5, 5, 1}}, 200, 51);
  CHECK(wb::estimate_density(two).modes.size() == 2);
}
