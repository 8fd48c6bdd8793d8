// Benchmark of the expectation model's cost: expect_peak (λ*, the peak-rate region's ends, the
// network at λ*) for samples of configs/sim.toml, each called twice in one process — the first
// call solves, the second finds the pool's QBD solutions in the memo of models/pool_qbd.hpp.
// Prints per call the wall time and the QBD solves it made (the memo's misses), with the values,
// so a change to the root finder shows both what it costs and that λ* did not move.
//
// Result on the shared 2-core machine (2026-11-25, load ~2, RelWithDebInfo -O2), disks=4,threads=100:
// before df85fae (a walk towards λ_max, then TOMS 748 on R − R_sat, one root at a time, no
// memo) 41 QBD solves, 0.97-1.07 s; now 20 solves, 0.47-0.49 s on the first call and 2-3 ms on the
// second (no solve). λ* 302.909917429315 either way (to 1e-15 relative).
//
// Usage: bench_expectation [--config F] [SAMPLE...]   samples as k=v,... (default: a few of sim.toml)
#include <fmt/format.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "experiment/expectation.hpp"
#include "models/pool_qbd.hpp"

using namespace wb;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) try {
  std::string config_file = WB_SOURCE_DIR "/configs/sim.toml";
  std::vector<std::string> samples;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) {
      config_file = argv[++i];
    } else {
      samples.push_back(a);
    }
  }
  if (samples.empty())
    samples = {"disks=4,threads=100", "disks=1,threads=100", "disks=2,threads=64", "disks=4,threads=16",
               "disks=4,threads=4"};
  Config config = Config::load(config_file);
  fmt::print("{:<22} {:>5} {:>9} {:>10} {:>18} {:>18} {:>18}\n", "sample", "call", "wall_s", "qbd_solves",
             "peak_rate", "region_low", "region_high");
  for (const auto& text : samples) {
    Sample sample = config.sample(text);
    for (int call = 1; call <= 2; ++call) {
      const std::size_t misses = pool_qbd_memo_stats().misses;
      auto t0 = Clock::now();
      PeakExpectation e = expect_peak(config, sample, {});
      double wall = std::chrono::duration<double>(Clock::now() - t0).count();
      fmt::print("{:<22} {:>5} {:>9.4f} {:>10} {:>18.12f} {:>18.12f} {:>18.12f}\n", text, call, wall,
                 pool_qbd_memo_stats().misses - misses, e.peak_rate, e.region_low, e.region_high);
    }
  }
  return 0;
} catch (const Error& e) {
  fmt::print(stderr, "bench_expectation: {}\n", e.what());
  return 2;
}
