// Binned Gaussian KDE [004 "Kernel Density Estimation"]: linear binning and FFT convolution
// [Wand & Jones 1995, Appendix D], the two-stage plug-in bandwidth [ibid. §3.6.1], modes and minima.
#include "models/kde.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <unsupported/Eigen/FFT>

#include <boost/math/constants/constants.hpp>
#include <boost/math/distributions/normal.hpp>

#include "core/error.hpp"
#include "core/stats.hpp"

namespace wb {
namespace {

using boost::math::constants::one_div_root_two_pi;
using boost::math::constants::root_pi;

// Past 5 bandwidths the Gaussian is below 4e-6 of its peak: the truncation error is smaller than the
// binning error, and the grid margin of 4 bandwidths keeps the tails' mass on the grid.
constexpr double kKernelReach = 5.0;
constexpr double kGridMargin = 4.0;
// At least 4 grid points per bandwidth keep the linear-binning error near 1e-3 of the peak [Wand &
// Jones 1995, App. D]; the cap bounds memory and FFT time when a wide range meets a tiny bandwidth.
constexpr double kPointsPerBandwidth = 4.0;
constexpr std::size_t kMaxGrid = std::size_t{1} << 18;

void check_sample(std::span<const double> xs) {
  if (xs.empty()) throw InputError("kernel density of an empty sample");
  for (double x : xs)
    if (!std::isfinite(x)) throw InputError("kernel density of a sample with a non-finite value");
}

// Type-7 quantile (linear between order statistics at (n − 1)p), on a copy the caller owns.
double quantile_of(std::vector<double>& v, double p) {
  double pos = p * static_cast<double>(v.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (pos - static_cast<double>(lo)) * (b - a);
}

// min(sd, IQR / IQR of the standard normal): a spread estimate that a long tail does not inflate.
double robust_scale(std::span<const double> xs) {
  double sd = sample_stddev(xs);
  std::vector<double> v(xs.begin(), xs.end());
  double iqr = quantile_of(v, 0.75) - quantile_of(v, 0.25);
  boost::math::normal standard;
  double normal_iqr = 2 * boost::math::quantile(standard, 0.75);
  return iqr > 0 ? std::min(sd, iqr / normal_iqr) : sd;
}

std::size_t next_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Linear binning: each value splits its unit weight between its two neighbouring grid points.
std::vector<double> linear_bins(std::span<const double> xs, double start, double step, std::size_t m) {
  std::vector<double> c(m, 0.0);
  double top = static_cast<double>(m - 1);
  for (double x : xs) {
    double pos = std::clamp((x - start) / step, 0.0, top);
    auto i = static_cast<std::size_t>(pos);
    if (i + 1 >= m) {
      c[m - 1] += 1;
      continue;
    }
    double frac = pos - static_cast<double>(i);
    c[i] += 1 - frac;
    c[i + 1] += frac;
  }
  return c;
}

// Circular convolution of a (zero-padded to p) with b (already laid out circularly in p points).
std::vector<double> convolve(const std::vector<double>& a, const std::vector<double>& b_circular) {
  std::size_t p = b_circular.size();
  std::vector<double> pa(p, 0.0);
  std::copy(a.begin(), a.end(), pa.begin());
  Eigen::FFT<double> fft;
  fft.SetFlag(Eigen::FFT<double>::HalfSpectrum);
  std::vector<std::complex<double>> fa, fb;
  fft.fwd(fa, pa);
  fft.fwd(fb, b_circular);
  for (std::size_t i = 0; i < fa.size(); ++i) fa[i] *= fb[i];
  std::vector<double> out;
  fft.inv(out, fa, static_cast<Eigen::Index>(p));
  return out;
}

// Σ_k c_k c_{k+d} for d = 0..m−1: the binned pair counts every functional estimate reuses.
std::vector<double> pair_counts(const std::vector<double>& c) {
  std::size_t m = c.size();
  std::size_t p = next_pow2(2 * m);
  std::vector<double> reversed(p, 0.0);
  // c reversed circularly: (c ⋆ c)_d = Σ_k c_{k+d} c_k = (c * c̃)_d with c̃_j = c_{−j}.
  reversed[0] = c[0];
  for (std::size_t j = 1; j < m; ++j) reversed[p - j] = c[j];
  std::vector<double> full = convolve(c, reversed);
  full.resize(m);
  return full;
}

// Binned estimate of ψ_r = ∫ f^(r) f for r = 4 or 6 at pilot bandwidth g [Wand & Jones 1995, §3.5]:
// 1/(n² g^(r+1)) Σ_d a_d φ^(r)(dδ/g), with φ^(4)(u) = (u⁴ − 6u² + 3)φ(u), φ^(6)(u) = (u⁶ − 15u⁴ + 45u² −
// 15)φ(u).
double psi_binned(const std::vector<double>& pairs, double step, double n, double g, int r) {
  auto phi_r = [r](double u) {
    double u2 = u * u;
    double poly = r == 4 ? (u2 * u2 - 6 * u2 + 3) : (u2 * u2 * u2 - 15 * u2 * u2 + 45 * u2 - 15);
    return poly * std::exp(-u2 / 2) * one_div_root_two_pi<double>();
  };
  double sum = pairs[0] * phi_r(0);
  for (std::size_t d = 1; d < pairs.size(); ++d) {
    double u = static_cast<double>(d) * step / g;
    if (u > 40) break;  // φ underflows
    sum += 2 * pairs[d] * phi_r(u);
  }
  return sum / (n * n * std::pow(g, r + 1));
}

std::size_t lowest_run_middle(const std::vector<double>& f, std::size_t from, std::size_t to, double tol) {
  auto lo = f.begin() + static_cast<std::ptrdiff_t>(from);
  auto hi = f.begin() + static_cast<std::ptrdiff_t>(to);
  double low = *std::min_element(lo, hi);
  auto first = std::find_if(lo, hi, [&](double v) { return v <= low + tol; });
  auto last = std::find_if(std::make_reverse_iterator(hi), std::make_reverse_iterator(lo),
                           [&](double v) { return v <= low + tol; });
  return (static_cast<std::size_t>(first - f.begin()) +
          static_cast<std::size_t>(last.base() - 1 - f.begin())) /
         2;
}

// Modes: local maxima at or above `min_height` of the peak whose dip to each neighbour is significant.
// A KDE at the MISE bandwidth shows sampling bumps [Silverman 1981]; f̂(x) has variance about
// f(x) R(φ) / (n h), so a dip smaller than z · its standard error is noise and its lower mode goes.
// Boundaries: the middle of the run of lowest density (a flat zero gap gets its middle).
void find_modes(Kde& kde, std::size_t n, const KdeOptions& options) {
  const std::vector<double>& f = kde.density;
  double peak = *std::max_element(f.begin(), f.end());
  double tol = 1e-12 * peak;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < f.size(); ++i) {
    bool rises = i == 0 || f[i] > f[i - 1];
    bool stays = i + 1 == f.size() || f[i] >= f[i + 1];
    if (rises && stays && f[i] >= options.min_mode_height * peak && f[i] > 0) at.push_back(i);
  }
  double z = options.mode_confidence > 0
                 ? boost::math::quantile(boost::math::normal(), options.mode_confidence)
                 : -std::numeric_limits<double>::infinity();
  double var_scale = 1 / (2 * root_pi<double>() * static_cast<double>(n) * kde.bandwidth);  // R(φ) / (n h)
  while (at.size() > 1) {
    double weakest = std::numeric_limits<double>::infinity();
    std::size_t which = 0;
    for (std::size_t k = 1; k < at.size(); ++k) {
      double top = std::min(f[at[k - 1]], f[at[k]]);
      double valley = f[lowest_run_middle(f, at[k - 1], at[k], tol)];
      double score = (top - valley) / std::sqrt((top + valley) * var_scale);
      if (score < weakest) {
        weakest = score;
        which = k;
      }
    }
    if (weakest >= z) break;
    at.erase(at.begin() + static_cast<std::ptrdiff_t>(f[at[which - 1]] < f[at[which]] ? which - 1 : which));
  }
  auto x_of = [&](std::size_t i) { return kde.grid_start + static_cast<double>(i) * kde.grid_step; };
  for (std::size_t k = 0; k < at.size(); ++k) {
    kde.modes.push_back(x_of(at[k]));
    if (k > 0) kde.boundaries.push_back(x_of(lowest_run_middle(f, at[k - 1], at[k], tol)));
  }
}

}  // namespace

double Kde::at(double x) const {
  if (density.empty() || grid_step <= 0) return 0;
  double pos = (x - grid_start) / grid_step;
  if (pos < 0 || pos > static_cast<double>(density.size() - 1)) return 0;
  auto i = static_cast<std::size_t>(pos);
  if (i + 1 >= density.size()) return density.back();
  double frac = pos - static_cast<double>(i);
  return density[i] * (1 - frac) + density[i + 1] * frac;
}

std::size_t Kde::cluster_of(double x) const {
  return static_cast<std::size_t>(std::upper_bound(boundaries.begin(), boundaries.end(), x) -
                                  boundaries.begin());
}

double silverman_bandwidth(std::span<const double> xs) {
  if (xs.size() < 2) return 0;
  return 0.9 * robust_scale(xs) * std::pow(static_cast<double>(xs.size()), -0.2);
}

double plugin_bandwidth(std::span<const double> xs, std::size_t grid_size) {
  if (xs.size() < 2) return 0;
  double scale = robust_scale(xs);
  if (scale <= 0) return 0;
  auto [lo_it, hi_it] = std::minmax_element(xs.begin(), xs.end());
  std::size_t m = std::max<std::size_t>(grid_size, 16);
  double step = (*hi_it - *lo_it) / static_cast<double>(m - 1);
  std::vector<double> pairs = pair_counts(linear_bins(xs, *lo_it, step, m));
  double n = static_cast<double>(xs.size());
  // Stage 0: ψ₈ of a normal with the sample's scale; each stage's pilot g minimizes the asymptotic
  // MSE of the next functional given the previous one [Wand & Jones 1995, eq. 3.22 and §3.6.1].
  double psi8 = 105 / (32 * root_pi<double>() * std::pow(scale, 9));
  double k6_0 = -15 * one_div_root_two_pi<double>();
  double k4_0 = 3 * one_div_root_two_pi<double>();
  double g1 = std::pow(-2 * k6_0 / (psi8 * n), 1.0 / 9);
  double psi6 = psi_binned(pairs, step, n, g1, 6);
  if (!(psi6 < 0)) return silverman_bandwidth(xs);
  double g2 = std::pow(-2 * k4_0 / (psi6 * n), 1.0 / 7);
  double psi4 = psi_binned(pairs, step, n, g2, 4);
  if (!(psi4 > 0)) return silverman_bandwidth(xs);
  double roughness = 1 / (2 * root_pi<double>());  // R(φ) = ∫ φ²
  return std::pow(roughness / (psi4 * n), 0.2);
}

Kde estimate_density(std::span<const double> xs, const KdeOptions& options) {
  check_sample(xs);
  Kde kde;
  kde.bandwidth = options.bandwidth > 0                       ? options.bandwidth
                  : options.rule == BandwidthRule::kSilverman ? silverman_bandwidth(xs)
                                                              : plugin_bandwidth(xs, options.grid_size);
  auto [lo_it, hi_it] = std::minmax_element(xs.begin(), xs.end());
  double h = kde.bandwidth;
  if (h <= 0) {  // every value equal (or one value): a point mass
    kde.grid_start = *lo_it;
    kde.density = {std::numeric_limits<double>::infinity()};
    kde.modes = {*lo_it};
    return kde;
  }
  double start = *lo_it - kGridMargin * h;
  double span = *hi_it - *lo_it + 2 * kGridMargin * h;
  std::size_t m =
      std::max(options.grid_size, static_cast<std::size_t>(std::ceil(kPointsPerBandwidth * span / h)));
  m = std::clamp<std::size_t>(m, 16, kMaxGrid);
  double step = span / static_cast<double>(m - 1);
  auto reach = std::min<std::size_t>(m - 1, static_cast<std::size_t>(std::ceil(kKernelReach * h / step)));
  std::size_t p = next_pow2(m + reach + 1);
  std::vector<double> kernel(p, 0.0);
  double norm = 1 / (static_cast<double>(xs.size()) * h);
  for (std::size_t j = 0; j <= reach; ++j) {
    double u = static_cast<double>(j) * step / h;
    double k = norm * one_div_root_two_pi<double>() * std::exp(-u * u / 2);
    kernel[j] = k;
    if (j > 0) kernel[p - j] = k;
  }
  kde.grid_start = start;
  kde.grid_step = step;
  kde.density = convolve(linear_bins(xs, start, step, m), kernel);
  kde.density.resize(m);
  // FFT round-off leaves noise near 1e-16 of the peak where the density is zero; noise would be modes.
  double noise = 1e-13 * *std::max_element(kde.density.begin(), kde.density.end());
  for (double& v : kde.density) v = v > noise ? v : 0.0;
  find_modes(kde, xs.size(), options);
  return kde;
}

std::vector<double> exact_density(std::span<const double> xs, double bandwidth, std::span<const double> at) {
  std::vector<double> out(at.size(), 0.0);
  double norm = one_div_root_two_pi<double>() / (static_cast<double>(xs.size()) * bandwidth);
  for (std::size_t j = 0; j < at.size(); ++j) {
    double sum = 0;
    for (double x : xs) {
      double u = (at[j] - x) / bandwidth;
      sum += std::exp(-u * u / 2);
    }
    out[j] = sum * norm;
  }
  return out;
}

}  // namespace wb
