// The simulated testbed's true peaks (sim::compute_truth, long runs bisected to 0.1%) have the shape
// of [003 Fig. 2]. Long-run simulations: label statistics, not in the sanitizer run.
#include <catch2/catch.hpp>

#include "core/config.hpp"
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
