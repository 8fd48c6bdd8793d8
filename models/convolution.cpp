#include "models/convolution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace wb {

namespace {

using Series = std::vector<long double>;

// f_k(j) = (D_k/s)^j / β_k(j), β_k(j) = Π_{i≤j} min(i, c_k) (c = ∞ for a delay center): the
// product-form factor of j customers at center k, with demands scaled by s.
Series factor(const ClosedCenter& c, long double scale, int population) {
  Series f(static_cast<std::size_t>(population) + 1, 0.0L);
  f[0] = 1;
  long double d = static_cast<long double>(c.demand) / scale;
  for (int j = 1; j <= population; ++j) {
    int rate = c.kind == ClosedCenterKind::kDelay ? j : std::min(j, c.servers);
    f[static_cast<std::size_t>(j)] = f[static_cast<std::size_t>(j - 1)] * d / rate;
  }
  return f;
}

Series convolve(const Series& a, const Series& b) {
  Series out(a.size(), 0.0L);
  for (std::size_t n = 0; n < a.size(); ++n) {
    long double sum = 0;
    for (std::size_t j = 0; j <= n; ++j) sum += a[j] * b[n - j];
    out[n] = sum;
  }
  return out;
}

Series unit(int population) {
  Series g(static_cast<std::size_t>(population) + 1, 0.0L);
  g[0] = 1;
  return g;
}

struct Solved {
  long double scale = 1;
  std::vector<Series> factors;  // per center (and the think stage last, if any)
  Series g;                     // G(n) of the whole network
};

Solved solve(const std::vector<ClosedCenter>& centers, int population) {
  Solved s;
  // Scale by the largest per-server demand: the bottleneck then contributes factors near 1 and
  // G(n) neither overflows nor underflows for large n.
  long double scale = 0;
  for (const auto& c : centers) {
    double per_server = c.kind == ClosedCenterKind::kDelay ? c.demand : c.demand / c.servers;
    scale = std::max(scale, static_cast<long double>(per_server));
  }
  s.scale = scale > 0 ? scale : 1;
  s.g = unit(population);
  for (const auto& c : centers) {
    s.factors.push_back(factor(c, s.scale, population));
    s.g = convolve(s.g, s.factors.back());
  }
  return s;
}

// Q_k(n) for n = 0..N from G without center k: Q_k(n) = Σ_j j·f_k(j)·G_{−k}(n−j) / G(n).
std::vector<double> queue_lengths(const Solved& s, std::size_t k, int population) {
  Series others = unit(population);
  for (std::size_t i = 0; i < s.factors.size(); ++i) {
    if (i != k) others = convolve(others, s.factors[i]);
  }
  std::vector<double> q(static_cast<std::size_t>(population) + 1, 0.0);
  for (std::size_t n = 1; n < q.size(); ++n) {
    long double sum = 0;
    for (std::size_t j = 1; j <= n; ++j) sum += static_cast<long double>(j) * s.factors[k][j] * others[n - j];
    q[n] = static_cast<double>(sum / s.g[n]);
  }
  return q;
}

}  // namespace

PopulationCurve population_curve(const std::vector<ClosedCenter>& centers, int population) {
  check_closed_model(centers, 0);
  check_population(population);
  Solved s = solve(centers, population);
  PopulationCurve curve;
  curve.throughput.assign(static_cast<std::size_t>(population) + 1, 0.0);
  for (std::size_t n = 1; n < curve.throughput.size(); ++n) {
    // X(n) = G(n−1)/G(n), undoing the scale.
    if (s.g[n] > 0) curve.throughput[n] = static_cast<double>(s.g[n - 1] / (s.g[n] * s.scale));
  }
  for (std::size_t k = 0; k < centers.size(); ++k) curve.queue.push_back(queue_lengths(s, k, population));
  return curve;
}

ClosedResult solve_convolution(const std::vector<ClosedCenter>& centers, int population, double think_time) {
  check_closed_model(centers, think_time);
  check_population(population);
  std::vector<ClosedCenter> all = centers;
  if (think_time > 0) all.push_back({"think", think_time, 1, ClosedCenterKind::kDelay});
  PopulationCurve curve = population_curve(all, population);
  ClosedResult r;
  r.population = population;
  r.throughput = curve.throughput[static_cast<std::size_t>(population)];
  for (std::size_t k = 0; k < centers.size(); ++k) {
    ClosedCenterResult c;
    c.name = centers[k].name;
    c.queue_length = curve.queue[k][static_cast<std::size_t>(population)];
    // Little's law per center; with no customers report the bare demand.
    c.residence = r.throughput > 0 ? c.queue_length / r.throughput : centers[k].demand;
    c.utilization = centers[k].kind == ClosedCenterKind::kDelay
                        ? 0
                        : r.throughput * centers[k].demand / centers[k].servers;
    r.response += c.residence;
    r.centers.push_back(std::move(c));
  }
  return r;
}

}  // namespace wb
