#include "experiment/demand_inference.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <map>
#include <set>

#include "core/error.hpp"
#include "models/open_network.hpp"

namespace wb {

namespace {

// The prior's spread of log m: a demand within 10x of the model's at 95 %.
const double kPriorSd = std::log(10.0) / 2;
// R above this is as good as saturated: log residuals stay finite where the network is not stable.
constexpr double kCapMs = 1e7;
constexpr double kMinSigma = 0.01;

// Indices of the centers whose demands are fitted: not pools, positive demand at the first point.
std::vector<std::size_t> fitted_centers(const EffectiveModel& m) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < m.network.centers.size(); ++i) {
    const ServiceCenter& c = m.network.centers[i];
    if (!c.pool && c.demand_ms.eval(m.sample) > 0) out.push_back(i);
  }
  return out;
}

// The effective model of one sample, with demands of the fitted centers as constants.
struct Base {
  EffectiveModel model;
  std::vector<double> demand_ms;  // per fitted center, per visit, before the multipliers
};

Base base_of(const Config& config, const Sample& sample, const std::vector<CalibratedDemand>& calibrations,
             const std::vector<std::size_t>& fitted) {
  Base b{effective_model(config, sample, calibrations), {}};
  for (std::size_t i : fitted)
    b.demand_ms.push_back(b.model.network.centers[i].demand_ms.eval(b.model.sample));
  return b;
}

QueueNetwork with_multipliers(const Base& b, const std::vector<std::size_t>& fitted,
                              const Eigen::VectorXd& theta) {
  QueueNetwork net = b.model.network;
  for (std::size_t j = 0; j < fitted.size(); ++j)
    net.centers[fitted[j]].demand_ms =
        Expr::constant(b.demand_ms[j] * std::exp(theta[static_cast<Eigen::Index>(j)]));
  return net;
}

double log_response(const Base& b, const std::vector<std::size_t>& fitted, const Eigen::VectorXd& theta,
                    double rate) {
  OpenResult r = solve_open(with_multipliers(b, fitted, theta), b.model.sample, rate);
  return std::log(r.stable && std::isfinite(r.response_ms) ? std::min(r.response_ms, kCapMs) : kCapMs);
}

struct Problem {
  std::vector<Base> bases;      // per distinct sample
  std::vector<std::size_t> at;  // per point: its base
  std::vector<double> rate, log_r;
  std::vector<std::size_t> fitted;

  // Raw residuals log(measured) − log(model R).
  Eigen::VectorXd residuals(const Eigen::VectorXd& theta) const {
    Eigen::VectorXd r(static_cast<Eigen::Index>(rate.size()));
    for (std::size_t i = 0; i < rate.size(); ++i)
      r[static_cast<Eigen::Index>(i)] = log_r[i] - log_response(bases[at[i]], fitted, theta, rate[i]);
    return r;
  }
};

// The scaled residual vector of the posterior: data terms r/σ, then prior terms θ/τ.
Eigen::VectorXd scaled(const Eigen::VectorXd& r, const Eigen::VectorXd& theta, double sigma) {
  Eigen::VectorXd out(r.size() + theta.size());
  out << r / sigma, theta / kPriorSd;
  return out;
}

double sigma_of(const Eigen::VectorXd& r, std::size_t k) {
  const double dof = std::max<double>(1, static_cast<double>(r.size()) - static_cast<double>(k));
  return std::max(kMinSigma, std::sqrt(r.squaredNorm() / dof));
}

}  // namespace

DemandInference infer_demands(const Config& config, const std::vector<LoadPoint>& points,
                              const std::vector<CalibratedDemand>& calibrations, double confidence) {
  if (!config.model()) throw InputError(config.file() + ": no [model] section: nothing to calibrate");
  if (points.empty()) throw InputError("no measured loads to fit the model to");
  Problem p;
  p.fitted = fitted_centers(effective_model(config, points.front().sample, calibrations));
  const std::size_t k = p.fitted.size();
  if (points.size() < k + 2) {
    throw InputError(
        fmt::format("{} measured loads cannot fit {} demands: measure at least {} (run a peak search "
                    "or fixed-rate trials first)",
                    points.size(), k, k + 2));
  }
  std::map<std::string, std::size_t> index;
  for (const LoadPoint& pt : points) {
    if (!(pt.rate > 0) || !(pt.mean_ms > 0) || !std::isfinite(pt.mean_ms)) continue;
    auto [it, added] = index.emplace(pt.sample.key(), p.bases.size());
    if (added) p.bases.push_back(base_of(config, pt.sample, calibrations, p.fitted));
    p.at.push_back(it->second);
    p.rate.push_back(pt.rate);
    p.log_r.push_back(std::log(pt.mean_ms));
  }
  if (p.rate.size() < k + 2) throw InputError("too few loads with a positive rate and response time to fit");

  // Levenberg–Marquardt on the scaled residuals, σ re-estimated from the data residuals each step.
  const auto n = static_cast<Eigen::Index>(k);
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd r = p.residuals(theta);
  double sigma = sigma_of(r, k);
  double damping = 1e-2;
  DemandInference out;
  out.confidence = confidence;
  Eigen::MatrixXd jac;
  auto jacobian = [&](const Eigen::VectorXd& at, const Eigen::VectorXd& r0, double s) {
    Eigen::MatrixXd j(r0.size() + n, n);
    const double h = 1e-4;
    for (Eigen::Index c = 0; c < n; ++c) {
      Eigen::VectorXd t = at;
      t[c] += h;
      j.col(c) = (scaled(p.residuals(t), t, s) - scaled(r0, at, s)) / h;
    }
    return j;
  };
  for (out.iterations = 0; out.iterations < 100; ++out.iterations) {
    Eigen::VectorXd e = scaled(r, theta, sigma);
    jac = jacobian(theta, r, sigma);
    Eigen::MatrixXd jtj = jac.transpose() * jac;
    Eigen::VectorXd g = jac.transpose() * e;
    bool improved = false;
    for (int tries = 0; tries < 20 && !improved; ++tries) {
      Eigen::MatrixXd a = jtj;
      a.diagonal() += damping * (jtj.diagonal().array() + 1e-9).matrix();
      Eigen::VectorXd step = a.ldlt().solve(-g);
      Eigen::VectorXd next = theta + step;
      Eigen::VectorXd rn = p.residuals(next);
      if (scaled(rn, next, sigma).squaredNorm() < e.squaredNorm()) {
        const bool done = step.norm() < 1e-6;
        theta = next;
        r = rn;
        damping = std::max(damping / 3, 1e-9);
        improved = true;
        if (done) tries = 20;
      } else {
        damping *= 4;
      }
    }
    const double new_sigma = sigma_of(r, k);
    const bool settled = std::abs(new_sigma - sigma) < 1e-6 * sigma;
    sigma = new_sigma;
    if (!improved && settled) break;
    if (!improved && damping > 1e12) break;
  }
  // Laplace approximation at the mode: the covariance of θ is the inverse of JᵀJ (scaled residuals).
  jac = jacobian(theta, r, sigma);
  Eigen::MatrixXd cov = (jac.transpose() * jac).inverse();
  const double z = boost::math::quantile(boost::math::normal(), 0.5 + confidence / 2);
  for (std::size_t j = 0; j < k; ++j) {
    const auto jj = static_cast<Eigen::Index>(j);
    const double sd = std::sqrt(std::max(0.0, cov(jj, jj)));
    out.centers.push_back(InferredCenter{p.bases.front().model.network.centers[p.fitted[j]].name,
                                         std::exp(theta[jj]), std::exp(theta[jj] - z * sd),
                                         std::exp(theta[jj] + z * sd)});
  }
  out.sigma = sigma;
  out.points = p.rate.size();
  return out;
}

namespace {

Eigen::VectorXd theta_of(const DemandInference& fit) {
  Eigen::VectorXd theta(static_cast<Eigen::Index>(fit.centers.size()));
  for (std::size_t j = 0; j < fit.centers.size(); ++j)
    theta[static_cast<Eigen::Index>(j)] = std::log(fit.centers[j].multiplier);
  return theta;
}

}  // namespace

double inferred_peak(const Config& config, const DemandInference& fit, const Sample& sample,
                     const std::vector<CalibratedDemand>& calibrations) {
  EffectiveModel m = effective_model(config, sample, calibrations);
  std::vector<std::size_t> fitted;
  for (const InferredCenter& c : fit.centers) {
    for (std::size_t i = 0; i < m.network.centers.size(); ++i) {
      if (m.network.centers[i].name == c.center) fitted.push_back(i);
    }
  }
  Base b = base_of(config, sample, calibrations, fitted);
  return predicted_peak(with_multipliers(b, fitted, theta_of(fit)), b.model.sample, config.peak().r_sat_ms);
}

std::vector<CalibratedDemand> inferred_calibrations(const Config& config, const DemandInference& fit,
                                                    const std::vector<Sample>& samples,
                                                    const std::vector<CalibratedDemand>& calibrations) {
  const QueueNetwork& net = *config.model();
  std::vector<CalibratedDemand> out;
  for (const InferredCenter& c : fit.centers) {
    const ServiceCenter* center = net.find(c.center);
    const std::vector<std::string> depends = center_factors(net, *center);
    std::set<std::string> seen;
    for (const Sample& s : samples) {
      std::string key;
      for (const auto& f : depends) key += f + "=" + (s.has(f) ? s.value(f) : std::string()) + ",";
      if (!seen.insert(key).second) continue;
      EffectiveModel m = effective_model(config, s, calibrations);
      const ServiceCenter* here = m.network.find(c.center);
      CalibratedDemand d;
      d.center = c.center;
      d.sample = s;
      d.demand_ms = here->demand_ms.eval(m.sample) * c.multiplier;
      d.source = fmt::format("fitted to {} measured loads (x{:.3f}, {:.0f}% interval x{:.3f}-x{:.3f})",
                             fit.points, c.multiplier, fit.confidence * 100, c.low, c.high);
      out.push_back(d);
    }
  }
  return out;
}

const char* regression_name(Regression r) {
  switch (r) {
    case Regression::kLinear: return "linear";
    case Regression::kQuadratic: return "quadratic";
    case Regression::kPowerLaw: return "power law";
  }
  return "?";
}

std::optional<double> regression_peak(Regression kind, const std::vector<LoadPoint>& points,
                                      double r_sat_ms) {
  const auto n = static_cast<Eigen::Index>(points.size());
  const int terms = kind == Regression::kQuadratic ? 3 : 2;
  if (n < terms) return std::nullopt;
  Eigen::MatrixXd x(n, terms);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const LoadPoint& p = points[static_cast<std::size_t>(i)];
    if (kind == Regression::kPowerLaw) {
      x(i, 0) = 1;
      x(i, 1) = std::log(p.rate);
      y[i] = std::log(p.mean_ms);
    } else {
      for (int t = 0; t < terms; ++t) x(i, t) = std::pow(p.rate, t);
      y[i] = p.mean_ms;
    }
  }
  Eigen::VectorXd b = x.colPivHouseholderQr().solve(y);
  if (kind == Regression::kPowerLaw) {
    // R = e^a λ^b reaches r_sat at λ = (r_sat / e^a)^(1/b) when it grows.
    if (!(b[1] > 0)) return std::nullopt;
    return std::exp((std::log(r_sat_ms) - b[0]) / b[1]);
  }
  if (kind == Regression::kLinear) {
    if (!(b[1] > 0)) return std::nullopt;
    double l = (r_sat_ms - b[0]) / b[1];
    return l > 0 ? std::optional<double>(l) : std::nullopt;
  }
  // The first positive rate where c λ² + b λ + a rises through r_sat.
  const double a = b[0] - r_sat_ms, bb = b[1], c = b[2];
  std::vector<double> roots;
  if (std::abs(c) < 1e-300) {
    if (bb > 0) roots.push_back(-a / bb);
  } else {
    const double disc = bb * bb - 4 * c * a;
    if (disc < 0) return std::nullopt;
    roots = {(-bb - std::sqrt(disc)) / (2 * c), (-bb + std::sqrt(disc)) / (2 * c)};
  }
  std::sort(roots.begin(), roots.end());
  for (double l : roots) {
    if (l > 0 && 2 * c * l + bb > 0) return l;
  }
  return std::nullopt;
}

}  // namespace wb
