#pragma once
// Gaussian kernel density estimation of a one-dimensional sample, its modes and the clusters between
// them [004 "Analyzing a Single Benchmark", "Kernel Density Estimation"]: f̂(x) = 1/(n h) Σ φ((x − xᵢ)/h).
// I/O classification (models/io_classify.hpp) runs it on log access times. Pure computation: no
// clock, no I/O; thread-safe (no shared state).
#include <cstddef>
#include <span>
#include <vector>

namespace wb {

enum class BandwidthRule {
  kPlugIn,    // Wand & Jones' two-stage direct plug-in (Sheather–Jones family): adapts to multimodality
  kSilverman  // 0.9 · min(sd, IQR/1.349) · n^(−1/5): the normal reference, oversmooths several modes
};

struct KdeOptions {
  BandwidthRule rule = BandwidthRule::kPlugIn;
  double bandwidth = 0;           // > 0: this bandwidth instead of the rule's
  std::size_t grid_size = 4096;   // at least this many grid points (more when the bandwidth is small)
  double min_mode_height = 0.01;  // a local maximum below this share of the highest density is no mode
  // The dip between two modes must exceed its noise at this one-sided level (0: keep every maximum).
  double mode_confidence = 0.999;
};

// The density on an evenly spaced grid, with its modes and the cluster boundaries between them.
struct Kde {
  double bandwidth = 0;
  double grid_start = 0;           // x of density[0]
  double grid_step = 0;            // > 0 unless the sample had no spread
  std::vector<double> density;     // f̂ at grid_start + i·grid_step; integrates to ~1
  std::vector<double> modes;       // x of each mode, ascending
  std::vector<double> boundaries;  // x of the lowest density between modes i and i+1; modes.size() − 1

  // f̂(x) interpolated linearly on the grid; 0 outside it.
  double at(double x) const;
  // The cluster holding x: the number of boundaries below or at x (0 ≤ result ≤ boundaries.size()).
  std::size_t cluster_of(double x) const;
};

// 0.9 · min(sd, IQR/1.349) · n^(−1/5) [Silverman 1986, eq. 3.31]; IQR from type-7 quantiles, 1.349 the
// normal's IQR from Boost.Math; when the IQR is 0, sd alone. 0 for fewer than 2 values or no spread.
double silverman_bandwidth(std::span<const double> xs);

// Two-stage direct plug-in bandwidth [Wand & Jones 1995, §3.6.1]: estimates ψ₆ and ψ₄ (integrals of
// density derivatives) with binned kernel functional estimators on `grid_size` points, starting from
// a normal reference for ψ₈. Falls back to Silverman's value when an estimated ψ is not positive. 0 for
// fewer than 2 values or no spread.
double plugin_bandwidth(std::span<const double> xs, std::size_t grid_size = 4096);

// The binned KDE: linear binning of xs onto a grid over [min − 4h, max + 4h] and one FFT convolution
// with the Gaussian kernel truncated at 5h, so O(n + M log M) for M grid points. Modes: local maxima
// at or above min_mode_height of the highest, dropping the lower of two neighbours while the dip
// between them is below z · sd(f̂) (sd² ≈ f̂ R(φ)/(n h), z the normal quantile at mode_confidence).
// Boundaries: between neighbouring modes, the middle of the run of lowest density. A sample with no
// spread gives bandwidth 0, one grid point of density +∞ and one mode. Throws InputError for an
// empty sample or a non-finite value.
Kde estimate_density(std::span<const double> xs, const KdeOptions& options = {});

// The exact sum f̂(x) = 1/(n h) Σ φ((x − xᵢ)/h) at each of `at`, O(n · at.size()): the reference the
// binned estimate is checked and benchmarked against.
std::vector<double> exact_density(std::span<const double> xs, double bandwidth, std::span<const double> at);

}  // namespace wb
