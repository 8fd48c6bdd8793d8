// Benchmark: the Gaussian KDE of I/O classification [004 "Kernel Density Estimation"] on
// 10^6 log access times (a cache / sequential / random-disk mix): plug-in bandwidth, binned density on
// the grid, modes. Peer: the exact O(n·grid) sum the binned estimate approximates (what
// scipy.stats.gaussian_kde evaluates), timed on a subset and extrapolated to n and the full grid, with
// the binned estimate's error against it. Then the classifier: calibration and labels per second.
//
// Usage: bench_ioclass [N=1000000] [PEER_N=100000] [PEER_POINTS=256] [REPEATS=3]
// Times are wall seconds, the median of REPEATS.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/io_classify.hpp"
#include "models/kde.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median_seconds(int repeats, const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    auto start = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Behaviour {
  const char* name;
  double latency_s, bytes_per_s, log_sd;
};
const Behaviour kBehaviours[] = {
    {"cache", 5e-6, 10e9, 0.25}, {"disk_sequential", 1e-4, 500e6, 0.25}, {"disk_random", 2e-3, 200e6, 0.3}};
const std::uint64_t kSizes[] = {4096, 16384, 65536, 262144, 1048576};

wb::IoOp make_op(const Behaviour& b, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0, b.log_sd);
  wb::IoOp op;
  op.size = kSizes[rng() % 5];
  op.duration_s = (b.latency_s + static_cast<double>(op.size) / b.bytes_per_s) * std::exp(z(rng));
  return op;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = argc > 1 ? std::stoul(argv[1]) : 1000000;
  std::size_t peer_n = argc > 2 ? std::stoul(argv[2]) : 100000;
  std::size_t peer_points = argc > 3 ? std::stoul(argv[3]) : 256;
  int repeats = argc > 4 ? std::stoi(argv[4]) : 3;
  std::mt19937_64 rng(42);
  std::vector<wb::IoOp> ops;
  std::vector<double> xs;
  for (std::size_t i = 0; i < n; ++i) {
    ops.push_back(make_op(kBehaviours[rng() % 3], rng));
    xs.push_back(std::log(ops.back().duration_s));
  }

  fmt::print("== KDE of {} log access times ==\n", n);
  double h = 0;
  wb::Kde kde;
  double t_bw = median_seconds(repeats, [&] { h = wb::plugin_bandwidth(xs); });
  wb::KdeOptions fixed;
  fixed.bandwidth = h;
  double t_grid = median_seconds(repeats, [&] { kde = wb::estimate_density(xs, fixed); });
  double t_all = median_seconds(repeats, [&] { kde = wb::estimate_density(xs); });
  wb::KdeOptions silverman;
  silverman.rule = wb::BandwidthRule::kSilverman;
  double t_silverman = median_seconds(repeats, [&] { (void)wb::estimate_density(xs, silverman); });
  fmt::print("plug-in bandwidth h = {:.5f} (Silverman {:.5f}), grid {} points, {} modes\n", h,
             wb::silverman_bandwidth(xs), kde.density.size(), kde.modes.size());
  fmt::print("  {:<44} {:>9}\n", "step", "seconds");
  fmt::print("  {:<44} {:>9.4f}\n", "plug-in bandwidth (binning, 2 functionals)", t_bw);
  fmt::print("  {:<44} {:>9.4f}\n", "binned density on the grid + modes", t_grid);
  fmt::print("  {:<44} {:>9.4f}\n", "all (estimate_density, plug-in)", t_all);
  fmt::print("  {:<44} {:>9.4f}\n", "all with Silverman's rule", t_silverman);

  // The peer: the exact sum on the first peer_n values at peer_points grid points, extrapolated.
  std::vector<double> sub(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(std::min(peer_n, n)));
  wb::KdeOptions sub_fixed;
  sub_fixed.bandwidth = h;
  wb::Kde sub_kde = wb::estimate_density(sub, sub_fixed);
  std::vector<double> at;
  for (std::size_t i = 0; i < peer_points; ++i)
    at.push_back(sub_kde.grid_start + sub_kde.grid_step * static_cast<double>(sub_kde.density.size() - 1) *
                                          static_cast<double>(i) / static_cast<double>(peer_points - 1));
  std::vector<double> exact;
  double t_exact = median_seconds(1, [&] { exact = wb::exact_density(sub, h, at); });
  double worst = 0, peak = *std::max_element(exact.begin(), exact.end());
  for (std::size_t i = 0; i < at.size(); ++i) worst = std::max(worst, std::abs(sub_kde.at(at[i]) - exact[i]));
  double scale = static_cast<double>(n) / static_cast<double>(sub.size()) *
                 static_cast<double>(kde.density.size()) / static_cast<double>(peer_points);
  double t_exact_full = t_exact * scale;
  fmt::print("exact sum: {} values x {} points in {:.3f} s; extrapolated to {} x {}: {:.1f} s\n", sub.size(),
             peer_points, t_exact, n, kde.density.size(), t_exact_full);
  fmt::print("binned / exact time (density on the grid): {:.2e} (x{:.0f} faster)\n", t_grid / t_exact_full,
             t_exact_full / t_grid);
  fmt::print("binned error against the exact sum (same {} values, same h): max {:.2e} of the peak\n",
             sub.size(), worst / peak);

  fmt::print("\n== classifier ==\n");
  std::vector<wb::CalibrationSet> sets;
  for (const Behaviour& b : kBehaviours) {
    wb::CalibrationSet s{b.name, {}};
    for (int i = 0; i < 100000; ++i) s.ops.push_back(make_op(b, rng));
    sets.push_back(std::move(s));
  }
  wb::IoClassifier classifier;
  double t_cal = median_seconds(repeats, [&] { classifier = wb::IoClassifier::calibrate(sets); });
  std::map<std::string, double> shares;
  double t_label = median_seconds(repeats, [&] { shares = classifier.shares(ops); });
  fmt::print("calibration on 3 x 100000 ops: {:.3f} s; labelling {} ops: {:.3f} s ({:.1f} M ops/s)\n", t_cal,
             n, t_label, static_cast<double>(n) / t_label / 1e6);
  for (const auto& [name, share] : shares) fmt::print("  {:<16} {:.4f} (generated 1/3 each)\n", name, share);
  return 0;
}
