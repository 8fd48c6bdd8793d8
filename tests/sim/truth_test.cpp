// The simulated testbed's true peaks (sim::compute_truth, long runs bisected to 0.1%) have the shape
// of [003 Fig. 2]. Long-run simulations: label statistics, not in the sanitizer run.
#include <catch2/catch.hpp>

#include "core/config.hpp"
#include "core/queue_network.hpp"
#include "harness/sim/truth.hpp"

using namespace wb;

TEST_CASE("more disks help only with enough threads (the shape of 003 Fig. 2)") {
  auto config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  const auto& sc = *config.sim();
  auto peak = [&](const char* set) {
    return sim::compute_truth(sc, config.sample(set), config.peak().region).peak_rate;
  };
  double d1t1 = peak("disks=1,threads=1"), d4t1 = peak("disks=4,threads=1");
  double d1t16 = peak("disks=1,threads=16"), d4t16 = peak("disks=4,threads=16");
  CHECK(d4t1 == Approx(d1t1).epsilon(0.1));  // one thread: disks do not matter
  CHECK(d4t16 > 3 * d1t16);                  // enough threads: peak grows with disks
  auto t = sim::compute_truth(sc, config.sample("disks=2,threads=16"), PeakRegion::mean(40, 0.1));
  CHECK(t.region_low < t.peak_rate);
  CHECK(t.peak_rate < t.region_high);
  CHECK(sim::long_run_mean_ms(sc, config.sample("disks=2,threads=16"), t.peak_rate, 11) ==
        Approx(40).epsilon(0.05));
}

TEST_CASE("the region's edges are found where a power of two lies inside the region") {
  // M/M/1, S = 12 ms: λ(R) = (1 - S/R)/S, so R_sat = 40 ms with s = 0.5 puts the edges at 33.3/s
  // (20 ms), 58.3/s (40 ms) and 66.7/s (60 ms): 64/s lies between the peak and the top edge.
  SimConfig sc;
  ServiceCenter c;
  c.name = "c";
  c.servers = Expr::parse("1");
  c.demand_ms = Expr::constant(12);
  c.distribution = ServiceDistribution::kExponential;
  sc.network.centers.push_back(c);
  const Sample none;
  auto t = sim::compute_truth(sc, none, PeakRegion::mean(40, 0.5));
  auto exact = [](double r_ms) { return (1 - 12 / r_ms) / 0.012; };
  CHECK(t.region_low == Approx(exact(20)).epsilon(0.03));
  CHECK(t.peak_rate == Approx(exact(40)).epsilon(0.03));
  CHECK(t.region_high == Approx(exact(60)).epsilon(0.03));
  // Long runs on either side of each edge fall on the right side of its response time.
  for (auto [rate, r_ms] : {std::pair{t.region_low, 20.0}, {t.peak_rate, 40.0}, {t.region_high, 60.0}}) {
    CHECK(sim::long_run_mean_ms(sc, none, 0.97 * rate, 5, 400000) < r_ms);
    CHECK(sim::long_run_mean_ms(sc, none, 1.03 * rate, 5, 400000) > r_ms);
  }
}
