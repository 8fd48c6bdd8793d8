#include "models/open_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "models/erlang.hpp"
#include "models/evaluated_network.hpp"
#include "models/pool_model.hpp"
#include "models/pool_qbd.hpp"

namespace wb {

namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

using detail::as_closed;
using detail::evaluate;
using detail::Evaluated;
using detail::Pool;
using detail::pools_of;

// Squared coefficient of variation of the contention-free token holding time, the sum of N_k service
// times per inner center, a fractional mean visit count v taken as floor(v) plus one with probability
// frac(v), as the simulated testbed draws it (docs/decisions.md#open-network).
double holding_scv(const std::vector<Evaluated>& centers, const Pool& p) {
  double mean = 0, var = 0;
  for (auto j : p.inner) {
    const Evaluated& e = centers[j];
    double v = e.spec->visits, s = e.per_visit_ms;
    double f = v - std::floor(v);
    mean += v * s;
    var += v * e.scv * s * s + f * (1 - f) * s * s;
  }
  return mean > 0 ? var / (mean * mean) : 1;
}

PoolModel pool_model(const std::vector<Evaluated>& centers, const Pool& p) {
  std::vector<ClosedCenter> inner;
  for (auto j : p.inner) inner.push_back(as_closed(centers[j]));
  return PoolModel(centers[p.index].servers, std::move(inner), holding_scv(centers, p));
}

// The pool's steady state: the exact QBD where its phase space is small enough, else the
// flow-equivalent server; non-exponential service scales the QBD's token wait by the FES's
// Allen–Cunneen-style term (docs/decisions.md#open-network).
PoolModel::State pool_state(const std::vector<Evaluated>& centers, const Pool& p, const PoolModel& model,
                            double per_ms) {
  if (per_ms <= 0 || per_ms >= model.capacity()) return model.at(per_ms);
  std::vector<PoolStation> stations;
  double mean = 0, extra_var = 0;
  for (auto j : p.inner) {
    const Evaluated& e = centers[j];
    int servers = e.spec->discipline == Discipline::kDelay ? 0 : e.servers;
    stations.push_back({e.per_visit_ms, servers, e.spec->visits});
    mean += e.demand_ms;
    extra_var += e.spec->visits * (e.scv - 1) * e.per_visit_ms * e.per_visit_ms;
  }
  auto exact = solve_pool_qbd(model.tokens(), stations, per_ms);
  if (!exact) return model.at(per_ms);
  exact->token_wait *= std::max(0.0, 1 + model.contention_free_share() * extra_var / (mean * mean) / 2);
  return *exact;
}

// A center outside any pool as an independent station fed at λ·visits (per ms).
void solve_station(const Evaluated& e, double lambda_per_ms, CenterResult* out) {
  const ServiceCenter& c = *e.spec;
  if (c.discipline == Discipline::kDelay) {
    out->utilization = 0;
    out->response_ms = e.demand_ms;
    return;
  }
  double visit_rate = lambda_per_ms * c.visits;
  MmcResult m = mmc(e.servers, visit_rate, e.per_visit_ms);
  out->utilization = m.utilization;
  if (!m.stable) {
    out->response_ms = kUnbounded;
    return;
  }
  // PS: the M/M/c means hold for any service distribution. FCFS: Allen–Cunneen.
  double wait = c.discipline == Discipline::kPs ? m.wait : m.wait * (1 + e.scv) / 2;
  out->response_ms = c.visits * (e.per_visit_ms + wait);
}

// The network evaluated for one sample with each pool's flow-equivalent server built: what the
// solves at every rate share (building a pool's model costs more than solving it at one rate).
struct Prepared {
  std::vector<Evaluated> centers;
  std::vector<Pool> pools;
  std::vector<PoolModel> models;  // one per pool, in the order of `pools`
};

Prepared prepare(const QueueNetwork& net, const Sample& sample) {
  Prepared p;
  p.centers = evaluate(net, sample);
  p.pools = pools_of(p.centers);
  for (const auto& pool : p.pools) p.models.push_back(pool_model(p.centers, pool));
  return p;
}

void check_rate(double lambda) {
  if (!(lambda >= 0) || !std::isfinite(lambda))
    throw Error(fmt::format("open network: rate {} (need a finite value >= 0)", lambda));
}

OpenResult solve_prepared(const Prepared& prepared, double lambda) {
  check_rate(lambda);
  const std::vector<Evaluated>& centers = prepared.centers;
  double per_ms = lambda / 1000.0;
  OpenResult r;
  r.lambda = lambda;
  r.centers.resize(centers.size());
  for (std::size_t i = 0; i < centers.size(); ++i) {
    auto& out = r.centers[i];
    out.name = centers[i].spec->name;
    out.pool = centers[i].spec->pool;
    out.servers = centers[i].servers;
    out.visits = out.pool ? 1 : centers[i].spec->visits;
    out.demand_ms = centers[i].demand_ms;
    if (!out.pool && centers[i].spec->within.empty()) solve_station(centers[i], per_ms, &out);
  }
  for (std::size_t i = 0; i < prepared.pools.size(); ++i) {
    const Pool& p = prepared.pools[i];
    const PoolModel& model = prepared.models[i];
    PoolModel::State s = pool_state(centers, p, model, per_ms);
    auto& out = r.centers[p.index];
    out.utilization = s.tokens_busy / model.tokens();
    out.response_ms = s.token_wait;
    for (std::size_t k = 0; k < p.inner.size(); ++k) {
      out.demand_ms += centers[p.inner[k]].demand_ms;
      auto& in = r.centers[p.inner[k]];
      // Inner centers see the rate the pool lets through.
      double through = std::min(per_ms, model.capacity());
      in.utilization = in.servers > 0 && centers[p.inner[k]].spec->discipline != Discipline::kDelay
                           ? through * in.demand_ms / in.servers
                           : 0;
      in.response_ms = s.residence[k];
    }
  }
  r.stable = true;
  double worst = -1;
  for (const auto& c : r.centers) {
    r.response_ms += c.response_ms;
    if (!std::isfinite(c.response_ms)) r.stable = false;
    if (c.utilization > worst) {
      worst = c.utilization;
      r.bottleneck = c.name;
    }
  }
  if (!r.stable) r.response_ms = kUnbounded;
  return r;
}

double saturation_of(const Prepared& prepared) {
  double best = kUnbounded;  // per ms
  for (const auto& e : prepared.centers) {
    if (e.spec->pool || !e.spec->within.empty() || e.spec->discipline == Discipline::kDelay) continue;
    best = std::min(best, e.servers / e.demand_ms);
  }
  for (const auto& model : prepared.models) best = std::min(best, model.capacity());
  return best * 1000.0;
}

}  // namespace

OpenResult solve_open(const QueueNetwork& net, const Sample& sample, double lambda) {
  check_rate(lambda);
  return solve_prepared(prepare(net, sample), lambda);
}

double saturation_rate(const QueueNetwork& net, const Sample& sample) {
  return saturation_of(prepare(net, sample));
}

double predicted_peak(const QueueNetwork& net, const Sample& sample, double r_sat_ms) {
  return predicted_peaks(net, sample, {r_sat_ms}).front();
}

std::vector<double> predicted_peaks(const QueueNetwork& net, const Sample& sample,
                                    const std::vector<double>& r_sat_ms,
                                    const std::function<void()>& between_solves) {
  for (double r : r_sat_ms)
    if (!(r > 0)) throw Error(fmt::format("predicted peak: R_sat {} ms (need > 0)", r));
  const Prepared prepared = prepare(net, sample);
  const double r_idle = solve_prepared(prepared, 0).response_ms;
  const double lambda_max = saturation_of(prepared);
  // Each root is that of 1/R(λ) − 1/R_sat: the same λ*, but nearly linear and known at λ_max, so TOMS 748
  // needs few network solves; solved points are kept to bracket the next root
  // (docs/decisions.md#open-network-roots).
  std::map<double, double> inverse_r{{0.0, 1 / r_idle}};
  if (std::isfinite(lambda_max)) inverse_r.emplace(lambda_max, 0.0);
  auto inverse_response = [&](double lambda) {
    auto [it, fresh] = inverse_r.try_emplace(lambda, 0.0);
    if (fresh) {
      if (between_solves) between_solves();
      it->second = 1 / solve_prepared(prepared, lambda).response_ms;
    }
    return it->second;
  };
  std::vector<double> out;
  for (double r : r_sat_ms) {
    if (r_idle >= r) {
      out.push_back(0);
    } else if (!std::isfinite(lambda_max)) {
      out.push_back(kUnbounded);  // only delay centers: R never reaches R_sat
    } else {
      const double target = 1 / r;
      auto excess = [&](double lambda) { return inverse_response(lambda) - target; };
      // The first rate solved with 1/R <= 1/R_sat (λ_max at the latest) and the one before it
      // (0 at the earliest, where 1/R > 1/R_sat) bracket the root.
      auto hi =
          std::find_if(inverse_r.begin(), inverse_r.end(), [&](const auto& p) { return p.second <= target; });
      auto lo = std::prev(hi);
      boost::math::tools::eps_tolerance<double> tol(48);
      std::uintmax_t max_iter = 200;
      auto [a, b] = boost::math::tools::toms748_solve(excess, lo->first, hi->first, lo->second - target,
                                                      hi->second - target, tol, max_iter);
      out.push_back((a + b) / 2);
    }
  }
  return out;
}

std::vector<ClosedCenter> closed_centers(const QueueNetwork& net, const Sample& sample) {
  std::vector<ClosedCenter> out;
  for (const auto& e : evaluate(net, sample)) {
    if (!e.spec->pool) out.push_back(as_closed(e));
  }
  return out;
}

}  // namespace wb
