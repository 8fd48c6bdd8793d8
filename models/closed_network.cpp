#include "models/closed_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "models/convolution.hpp"
#include "models/evaluated_network.hpp"
#include "models/mva.hpp"
#include "models/pool_model.hpp"

namespace wb {

namespace {

using detail::as_closed;
using detail::Evaluated;
using detail::Pool;

// One station of the outer network, with the state MVA carries from population n−1 to n.
struct Station {
  enum class Kind { kDelay, kQueue, kLoadDependent };
  Kind kind = Kind::kQueue;
  double demand = 0;  // kDelay, kQueue: D (ms per request)
  // kLoadDependent: rate[j] = μ(j) for j = 1..m (rate[0] unused); μ(j) = μ(m) for every j > m.
  std::vector<double> rate;
  // kLoadDependent: the bit of this station in the complement masks when p(0|n) comes from the
  // network without it (see solve_outer), else -1.
  int complement_bit = -1;
  double queue = 0;  // Q(n): mean requests at the station
  // kLoadDependent: p(j|n) for j = 0..m−1, in long double: p(j|n) = Π X/μ · p(0|n−j) grows by up
  // to the amplification below (e^995 for 1000 servers), so a p(0|·) under the double range
  // (~1e-308) can still carry much of p(·|n) later; long double holds down to ~1e-4932.
  std::vector<long double> p;
  double residence = 0;    // R(n), ms
  std::size_t center = 0;  // the outer center it stands for, or the pool
};

Station simple(Station::Kind kind, double demand, std::size_t center) {
  Station s;
  s.kind = kind;
  s.demand = demand;
  s.center = center;
  return s;
}

Station load_dependent(std::vector<double> rate, std::size_t center) {
  Station s;
  s.kind = Station::Kind::kLoadDependent;
  s.rate = std::move(rate);
  s.p.assign(s.rate.size() - 1, 0.0L);
  s.p[0] = 1;  // population 0: empty
  s.center = center;
  return s;
}

// A c-server queue: μ(j) = min(j, c)/D, constant beyond m = c. With c >= N every request has a
// server of its own: a delay center, exactly.
Station multi_server(double demand, int servers, int population, std::size_t center) {
  if (servers >= population) return simple(Station::Kind::kDelay, demand, center);
  std::vector<double> rate(static_cast<std::size_t>(servers) + 1, 0.0);
  for (int j = 1; j <= servers; ++j) rate[static_cast<std::size_t>(j)] = j / demand;
  return load_dependent(std::move(rate), center);
}

// How much the recursion p(j|n) = X(n)/μ(j)·p(j−1|n−1) can magnify an error in p(0|·) on its way
// to p(m−1|·): up to Π_{j<m} μ(m)/μ(j), as X(n) <= μ(m). For a c-server queue that is
// c^(c−1)/(c−1)!, 1e6 at c ≈ 17 and 1e12 at c = 32.
double log_amplification(const Station& s) {
  const std::size_t m = s.rate.size() - 1;
  double log_a = 0;
  for (std::size_t j = 1; j < m; ++j) log_a += std::max(0.0, std::log(s.rate[m] / s.rate[j]));
  return log_a;
}

// R(n) of a load-dependent station from p(·|n−1) and Q(n−1) [Reiser & Lavenberg 1980]:
// R(n) = Σ_{j≥1} j/μ(j)·p(j−1|n−1); terms past the kept j ≤ m have μ(j) = μ(m) and sum to
// Q(n−1) + 1 − Σ_{i<m} (i+1)·p(i|n−1).
double ld_residence(const Station& s) {
  const std::size_t m = s.rate.size() - 1;
  long double r = 0, head = 0;
  for (std::size_t j = 1; j <= m; ++j) {
    r += static_cast<long double>(j) / s.rate[j] * s.p[j - 1];
    head += static_cast<long double>(j) * s.p[j - 1];
  }
  long double tail = std::max(0.0L, s.queue + 1 - head);
  return static_cast<double>(r + tail / s.rate[m]);
}

// p(j|n) = X(n)/μ(j)·p(j−1|n−1) for j ≥ 1; p(0|n) what the others leave or, given the complement's
// X_c(n), p(0|n−1)·X(n)/X_c(n) = G_c(n)/G(n) [Reiser 1981], free of the cancellation
// (docs/decisions.md#closed-network).
void ld_update(Station& s, double throughput, const double* complement_throughput) {
  const std::size_t m = s.rate.size() - 1;
  long double below = 0;  // Σ_{i<m−1} p(i|n−1)
  for (std::size_t i = 0; i + 1 < m; ++i) below += s.p[i];
  const auto x = static_cast<long double>(throughput);
  long double busy = x / s.rate[m] * std::max(0.0L, 1 - below);
  for (std::size_t j = m - 1; j >= 1; --j) {
    s.p[j] = x / s.rate[j] * s.p[j - 1];
    busy += s.p[j];
  }
  if (complement_throughput != nullptr) {
    // An empty complement (nothing else and no think time) is never the only place requests are.
    s.p[0] = std::isinf(*complement_throughput) ? 0 : s.p[0] * x / *complement_throughput;
  } else {
    // The difference cancels near saturation; rounding must not make a probability negative.
    s.p[0] = std::max(0.0L, 1 - busy);
  }
}

// Above this magnification (see log_amplification) p(0|n) comes from the complement network.
constexpr double kLogUnstable = 13.8;  // ln 1e6: errors of 1e-16 stay below 1e-10
// Above this one p(0|·) could underflow even a long double (down to e^-11355): not solved exactly.
constexpr double kLogRange = 11000;
// Complement networks needed grow as 2^U in the number U of such stations.
constexpr int kMaxComplementStations = 10;

// Load-dependent MVA of the outer network over n = 1..N [Reiser & Lavenberg 1980]; returns X(N), each
// station left at N. Stations needing the complement run in lockstep with every subset of them removed
// (network `mask` − bit is mask's complement); more than kMaxComplementStations is refused.
void check_complements(const std::vector<Station>& stations) {
  const auto unstable = std::count_if(stations.begin(), stations.end(), [](const Station& s) {
    return s.kind == Station::Kind::kLoadDependent && log_amplification(s) > kLogUnstable;
  });
  if (unstable > kMaxComplementStations) {
    throw InputError(fmt::format(
        "closed model: {} centers and pools have so many servers or tokens that their exact solution needs "
        "2^{} complement networks (at most {} such centers)",
        unstable, unstable, kMaxComplementStations));
  }
}

double solve_outer(std::vector<Station>& stations, int population, double think_ms) {
  check_complements(stations);
  int unstable = 0;
  for (auto& s : stations) {
    if (s.kind == Station::Kind::kLoadDependent && log_amplification(s) > kLogUnstable) {
      s.complement_bit = unstable++;
    }
  }
  const std::size_t networks = std::size_t{1} << unstable;
  std::vector<std::vector<Station>> net(networks, stations);
  std::vector<double> throughput(networks, 0.0);
  auto holds = [](const Station& s, std::size_t mask) {
    return s.complement_bit < 0 || ((mask >> s.complement_bit) & 1U) != 0;
  };
  for (int n = 1; n <= population; ++n) {
    for (std::size_t mask = 0; mask < networks; ++mask) {  // complements (smaller masks) first
      double cycle = think_ms;
      for (auto& s : net[mask]) {
        if (!holds(s, mask)) continue;
        switch (s.kind) {
          case Station::Kind::kDelay: s.residence = s.demand; break;
          case Station::Kind::kQueue: s.residence = s.demand * (1 + s.queue); break;
          case Station::Kind::kLoadDependent: s.residence = ld_residence(s); break;
        }
        cycle += s.residence;
      }
      double x = cycle > 0 ? n / cycle : std::numeric_limits<double>::infinity();
      throughput[mask] = x;
      for (auto& s : net[mask]) {
        if (!holds(s, mask)) continue;
        if (s.kind == Station::Kind::kLoadDependent) {
          const double* complement =
              s.complement_bit < 0 ? nullptr : &throughput[mask & ~(std::size_t{1} << s.complement_bit)];
          ld_update(s, x, complement);
        }
        s.queue = x * s.residence;
      }
    }
  }
  stations = std::move(net.back());
  return throughput.back();
}

// What the exact solution of `stations` over populations 1..N costs: every network (2^U of them)
// visits each station's kept probabilities (one value for the others) at every population.
double exact_work(const std::vector<Station>& stations, int population) {
  double per_network = 0;
  int unstable = 0;
  for (const auto& s : stations) {
    if (s.kind != Station::Kind::kLoadDependent) {
      per_network += 1;
      continue;
    }
    per_network += static_cast<double>(s.rate.size());
    const double log_a = log_amplification(s);
    if (log_a > kLogRange) return std::numeric_limits<double>::infinity();
    if (log_a > kLogUnstable) ++unstable;
  }
  return std::ldexp(per_network * population, std::min(unstable, 60));
}

// A pool as a flow-equivalent server, with what its results need.
struct FlowEquivalent {
  const Pool* pool = nullptr;
  PopulationCurve curve;  // of the inner centers, populations 0..m, m = min(T, N, M)
  std::size_t station = 0;
  bool truncated = false;  // m < min(T, N): μ(j) = X_in(m) taken for every j > m
};

void check_inputs(int clients, double think_ms, bool pools) {
  if (clients < 0) throw InputError(fmt::format("--clients {} must be at least 0", clients));
  if (pools && clients > kClosedPoolLimit) {
    throw InputError(fmt::format(
        "--clients {} is above {}, the largest population the closed model solves for a network with "
        "pools (its exact solution costs time in proportion to the clients times the tokens)",
        clients, kClosedPoolLimit));
  }
  if (!(think_ms >= 0) || !std::isfinite(think_ms)) {
    throw InputError(fmt::format("--think {} must be a time >= 0 ms", think_ms));
  }
}

ClosedResult light_load(const std::vector<Evaluated>& centers) {
  // With no clients nothing queues: report the residence a lone request would see.
  ClosedResult r;
  for (const auto& e : centers) {
    double residence = e.spec->pool ? 0 : e.demand_ms;
    r.centers.push_back({e.spec->name, residence, 0, 0});
    r.response += residence;
  }
  return r;
}

}  // namespace

ClosedResult solve_closed(const QueueNetwork& net, const Sample& sample, int clients, double think_ms) {
  const std::vector<Evaluated> centers = detail::evaluate(net, sample);
  const std::vector<Pool> pools = detail::pools_of(centers);
  check_inputs(clients, think_ms, !pools.empty());
  if (clients == 0) return light_load(centers);
  auto schweitzer = [&] {
    std::vector<ClosedCenter> closed;
    closed.reserve(centers.size());
    for (const auto& e : centers) closed.push_back(as_closed(e));
    return mva_schweitzer(closed, clients, think_ms);
  };
  if (pools.empty() && clients > kClosedExactLimit) return schweitzer();

  // The outer network: centers outside pools, then one flow-equivalent server per pool.
  std::vector<Station> stations;
  for (std::size_t i = 0; i < centers.size(); ++i) {
    const Evaluated& e = centers[i];
    if (e.spec->pool || !e.spec->within.empty()) continue;
    if (e.spec->discipline == Discipline::kDelay) {
      stations.push_back(simple(Station::Kind::kDelay, e.demand_ms, i));
    } else if (e.servers == 1) {
      stations.push_back(simple(Station::Kind::kQueue, e.demand_ms, i));
    } else {
      stations.push_back(multi_server(e.demand_ms, e.servers, clients, i));
    }
  }
  std::vector<FlowEquivalent> fes;
  for (const auto& p : pools) {
    std::vector<ClosedCenter> inner;
    inner.reserve(p.inner.size());
    for (auto j : p.inner) inner.push_back(as_closed(centers[j]));
    // More tokens than clients are never all held: solve the inner network up to min(T, N), and
    // beyond M populations take its throughput as constant (see models/pool_model.hpp).
    const int held = std::min(centers[p.index].servers, clients);
    int m = std::min(held, pool_curve_limit(inner.size()));
    FlowEquivalent f;
    f.pool = &p;
    f.curve = population_curve(inner, m);
    f.station = stations.size();
    f.truncated = m < held;
    fes.push_back(std::move(f));
    stations.push_back(load_dependent(fes.back().curve.throughput, p.index));
  }
  check_complements(stations);
  int seidmann = 0;
  if (exact_work(stations, clients) > kClosedWorkBudget) {
    // Too many servers below N for the exact multi-server recursion in bounded time.
    if (pools.empty()) return schweitzer();
    std::vector<Station> split;
    std::size_t next_pool = 0;  // the pools' stations come last, in the order of `fes`
    for (auto& s : stations) {
      const Evaluated& e = centers[s.center];
      if (s.kind == Station::Kind::kLoadDependent && !e.spec->pool) {
        // Seidmann's approximation (models/mva.hpp): one server of D/c and a delay of D·(c−1)/c.
        split.push_back(simple(Station::Kind::kQueue, e.demand_ms / e.servers, s.center));
        split.push_back(simple(Station::Kind::kDelay, e.demand_ms - e.demand_ms / e.servers, s.center));
        ++seidmann;
        continue;
      }
      if (e.spec->pool) fes[next_pool++].station = split.size();
      split.push_back(std::move(s));
    }
    stations = std::move(split);
    if (exact_work(stations, clients) > kClosedWorkBudget) {
      // Then the pools share what the budget leaves (each taken to need a complement network):
      // their curves end earlier, completing at X_in(m) beyond (as past M above).
      double others = 0;
      for (const auto& st : stations) others += st.kind == Station::Kind::kLoadDependent ? 0 : 1;
      const double per_pool =
          (std::ldexp(kClosedWorkBudget / clients, -static_cast<int>(std::min<std::size_t>(fes.size(), 60))) -
           others) /
          static_cast<double>(fes.size());
      for (auto& f : fes) {
        const auto m = static_cast<std::size_t>(std::max(1.0, std::floor(per_pool) - 1));
        if (m + 1 >= f.curve.throughput.size()) continue;
        f.curve.throughput.resize(m + 1);
        for (auto& q : f.curve.queue) q.resize(m + 1);
        f.truncated = true;
        stations[f.station] = load_dependent(f.curve.throughput, f.pool->index);
      }
    }
    if (exact_work(stations, clients) > kClosedWorkBudget) {
      throw InputError(fmt::format(
          "closed model: {} clients with these pools need about {:.0e} steps of the exact solution (at most "
          "{:.0e}): fewer clients, or fewer or smaller pools",
          clients, exact_work(stations, clients), kClosedWorkBudget));
    }
  }
  const double throughput = solve_outer(stations, clients, think_ms);

  ClosedResult r;
  r.population = clients;
  r.throughput = throughput;
  r.seidmann_centers = seidmann;
  r.centers.resize(centers.size());
  for (std::size_t i = 0; i < centers.size(); ++i) {
    r.centers[i].name = centers[i].spec->name;
    if (!centers[i].spec->pool && centers[i].spec->discipline != Discipline::kDelay) {
      r.centers[i].utilization = throughput * centers[i].demand_ms / centers[i].servers;
    }
  }
  for (const auto& s : stations) {
    if (centers[s.center].spec->pool) continue;
    // A center split by Seidmann's approximation has two stations: its residence is their sum.
    r.centers[s.center].residence += s.residence;
    r.centers[s.center].queue_length += s.queue;
  }
  for (const auto& f : fes) {
    const Station& s = stations[f.station];
    const std::size_t m = s.rate.size() - 1;
    // p(j|N) for j < m as kept, and the rest of the mass at j >= m, where the inner network
    // holds m requests (all tokens out, or every client in the pool) — or, past a truncated
    // curve, more: their mean number, at most T, each adding its last increment to the queues.
    double below = 0, tokens = 0, count_below = 0;
    for (std::size_t j = 0; j < m; ++j) {
      below += static_cast<double>(s.p[j]);
      count_below += static_cast<double>(j) * static_cast<double>(s.p[j]);
    }
    double full = std::max(0.0, 1 - below);
    double extra = 0;  // mean requests held beyond m, over the mass at j >= m
    if (f.truncated && full > 0) {
      const double tail_mean = std::max(static_cast<double>(m), (s.queue - count_below) / full);
      extra =
          std::min(tail_mean, static_cast<double>(centers[f.pool->index].servers)) - static_cast<double>(m);
    }
    tokens = count_below + (static_cast<double>(m) + extra) * full;
    double inside = 0;
    for (std::size_t k = 0; k < f.pool->inner.size(); ++k) {
      const auto& q = f.curve.queue[k];
      double queue = full * (q[m] + extra * (m >= 1 ? q[m] - q[m - 1] : 0.0));
      for (std::size_t j = 1; j < m; ++j) queue += static_cast<double>(s.p[j]) * q[j];
      auto& c = r.centers[f.pool->inner[k]];
      c.queue_length = queue;
      c.residence = queue / throughput;
      inside += queue;
    }
    auto& pool = r.centers[f.pool->index];
    pool.queue_length = std::max(0.0, s.queue - inside);
    pool.residence = pool.queue_length / throughput;
    pool.utilization = tokens / centers[f.pool->index].servers;
  }
  for (const auto& c : r.centers) r.response += c.residence;
  return r;
}

}  // namespace wb
