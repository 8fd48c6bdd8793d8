// Black-box calibration on points drawn from a known network: the fit recovers demands it was not
// told (inside its stated intervals), extrapolates λ* from low-load points, and the regressions it
// is compared with find their crossings. Pure: no store, no processes.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/config.hpp"
#include "core/error.hpp"
#include "experiment/demand_inference.hpp"
#include "models/open_network.hpp"

namespace {

// A pool of {clients} backends holding a 2-core CPU and a one-server log device; [model] says
// 1 ms of CPU and 1 ms of log per transaction.
const char* const kConfig = R"([testbed]
name = "fit"
[factors.clients]
levels = [2, 4, 8]
[peak]
r_sat_ms = 20
width = 0.2
[[model.center]]
name = "backends"
kind = "pool"
servers = "{clients}"
[[model.center]]
name = "cpu"
servers = 2
service_ms = 1.0
within = "backends"
[[model.center]]
name = "log"
servers = 1
service_ms = 1.0
within = "backends"
)";

// The same network with the true demands: CPU 1.6 ms, log 0.6 ms.
wb::Config truth_config() {
  std::string text = kConfig;
  text.replace(text.find("service_ms = 1.0"), 16, "service_ms = 1.6");
  text.replace(text.find("service_ms = 1.0"), 16, "service_ms = 0.6");
  return wb::Config::parse(text, "truth.toml");
}

wb::Sample clients(int n) {
  wb::Sample s;
  s.set("clients", std::to_string(n));
  return s;
}

// Mean responses of the true network at `fractions` of its λ*, each times a log-normal error.
std::vector<wb::LoadPoint> measure(const wb::Config& truth, const std::vector<int>& levels,
                                   const std::vector<double>& fractions, double sigma, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, sigma);
  std::vector<wb::LoadPoint> out;
  for (int c : levels) {
    const wb::Sample s = clients(c);
    const double peak = wb::predicted_peak(*truth.model(), truth.model()->with_attributes(s), 20);
    for (double f : fractions) {
      for (int trial = 0; trial < 3; ++trial) {
        double r = wb::solve_open(truth.model()->resolved(s), truth.model()->with_attributes(s), f * peak)
                       .response_ms;
        out.push_back(wb::LoadPoint{s, f * peak, r * std::exp(noise(rng))});
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("demand inference recovers demands the points identify, inside its intervals") {
  // A delay (the network: 0.3 ms said, 0.8 ms true) before two FCFS disks (2 ms said, 3 ms true):
  // the delay shifts every response, the disks' demand sets the curve's rise, so both are identified.
  const char* const model = R"([testbed]
name = "fit"
[factors.disks]
levels = [1, 2, 4]
[peak]
r_sat_ms = 20
width = 0.2
[[model.center]]
name = "net"
discipline = "delay"
service_ms = 0.3
[[model.center]]
name = "disk"
servers = "{disks}"
service_ms = 2.0
)";
  std::string truth_text = model;
  truth_text.replace(truth_text.find("service_ms = 0.3"), 16, "service_ms = 0.8");
  truth_text.replace(truth_text.find("service_ms = 2.0"), 16, "service_ms = 3.0");
  const wb::Config config = wb::Config::parse(model, "fit.toml");
  const wb::Config truth = wb::Config::parse(truth_text, "truth.toml");
  std::vector<wb::LoadPoint> points;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.05);
  for (int d : {1, 2}) {
    wb::Sample s;
    s.set("disks", std::to_string(d));
    const double peak = wb::predicted_peak(*truth.model(), truth.model()->with_attributes(s), 20);
    for (double f : {0.2, 0.4, 0.6, 0.8, 0.95}) {
      for (int trial = 0; trial < 3; ++trial) {
        double r = wb::solve_open(truth.model()->resolved(s), truth.model()->with_attributes(s), f * peak)
                       .response_ms;
        points.push_back(wb::LoadPoint{s, f * peak, r * std::exp(noise(rng))});
      }
    }
  }
  wb::DemandInference fit = wb::infer_demands(config, points, {});
  REQUIRE(fit.centers.size() == 2);
  INFO("iterations " << fit.iterations << " sigma " << fit.sigma);
  const double want[] = {0.8 / 0.3, 3.0 / 2.0};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& c = fit.centers[i];
    INFO(c.center << " x" << c.multiplier << " [" << c.low << ", " << c.high << "], truth x" << want[i]);
    CHECK(c.multiplier == Approx(want[i]).epsilon(0.1));
    CHECK((c.low <= want[i] && want[i] <= c.high));
    CHECK(c.high / c.low < 1.5);  // 30 points at 5 % noise pin each down
  }
  CHECK(fit.sigma == Approx(0.05).epsilon(0.4));
  CHECK(fit.points == points.size());
  wb::Sample four;
  four.set("disks", "4");
  CHECK(wb::inferred_peak(config, fit, four, {}) ==
        Approx(wb::predicted_peak(*truth.model(), truth.model()->with_attributes(four), 20)).epsilon(0.05));
  // The calibrations it would store: constant demands, one per center.
  auto cals = wb::inferred_calibrations(config, fit, {four}, {});
  REQUIRE(cals.size() == 2);
  CHECK(cals[1].demand_ms == Approx(2.0 * fit.centers[1].multiplier));
}

TEST_CASE("demand inference predicts λ* where response times alone cannot tell two centers apart") {
  // Inside the pool, a 2-server CPU and a 1-server log device trade places as the bottleneck with
  // nearly the same capacity: the points fix the total demand and the capacity, which λ* needs.
  const wb::Config config = wb::Config::parse(kConfig, "fit.toml");
  const wb::Config truth = truth_config();
  auto points = measure(truth, {2, 4, 8}, {0.2, 0.4, 0.6, 0.8, 0.95}, 0.05, 7);
  wb::DemandInference fit = wb::infer_demands(config, points, {});
  REQUIRE(fit.centers.size() == 2);
  CHECK(fit.centers[0].multiplier * 1.0 + fit.centers[1].multiplier * 1.0 == Approx(1.6 + 0.6).epsilon(0.1));
  const double want = wb::predicted_peak(*truth.model(), truth.model()->with_attributes(clients(16)), 20);
  CHECK(wb::inferred_peak(config, fit, clients(16), {}) == Approx(want).epsilon(0.05));
}

TEST_CASE("demand inference extrapolates λ* from low-load points, the regressions fall farther off") {
  const wb::Config config = wb::Config::parse(kConfig, "fit.toml");
  const wb::Config truth = truth_config();
  auto low = measure(truth, {8}, {0.2, 0.35, 0.5, 0.65}, 0.03, 11);
  const double want = wb::predicted_peak(*truth.model(), truth.model()->with_attributes(clients(8)), 20);
  wb::DemandInference fit = wb::infer_demands(config, low, {});
  const double queueing = wb::inferred_peak(config, fit, clients(8), {});
  INFO("truth " << want << ", queueing fit " << queueing);
  CHECK(queueing == Approx(want).epsilon(0.1));
  for (auto r : {wb::Regression::kLinear, wb::Regression::kQuadratic, wb::Regression::kPowerLaw}) {
    auto p = wb::regression_peak(r, low, 20);
    INFO(wb::regression_name(r) << ": " << (p ? *p : -1));
    if (p) CHECK(std::abs(*p / want - 1) > std::abs(queueing / want - 1));
  }
}

TEST_CASE("regressions find where each curve reaches R_sat") {
  std::vector<wb::LoadPoint> line;
  for (double l : {10.0, 20.0, 30.0}) line.push_back(wb::LoadPoint{clients(2), l, 2 + 0.5 * l});
  CHECK(*wb::regression_peak(wb::Regression::kLinear, line, 22) == Approx(40));
  CHECK(*wb::regression_peak(wb::Regression::kPowerLaw, {{clients(2), 1, 2}, {clients(2), 4, 8}}, 32) ==
        Approx(16));
  std::vector<wb::LoadPoint> quad;
  for (double l : {1.0, 2.0, 3.0, 4.0}) quad.push_back(wb::LoadPoint{clients(2), l, 1 + l * l});
  CHECK(*wb::regression_peak(wb::Regression::kQuadratic, quad, 26) == Approx(5));
  // A falling curve never reaches a higher R_sat.
  CHECK(!wb::regression_peak(wb::Regression::kLinear, {{clients(2), 1, 5}, {clients(2), 2, 4}}, 10));
}

TEST_CASE("demand inference refuses too few points") {
  const wb::Config config = wb::Config::parse(kConfig, "fit.toml");
  CHECK_THROWS_AS(wb::infer_demands(config, {}, {}), wb::InputError);
  CHECK_THROWS_WITH(wb::infer_demands(config, {{clients(2), 10, 3}, {clients(2), 20, 4}}, {}),
                    Catch::Contains("cannot fit 2 demands"));
}
