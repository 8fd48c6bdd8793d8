#pragma once
// Internal to models/: the [model] queue network evaluated for one sample, shared by the open and
// closed analyses so both read and reject server counts and demands the same way. wb::InputError for a
// server count not a whole number >= 1 or a demand not a positive time, naming center and sample.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "core/queue_network.hpp"
#include "core/sample.hpp"
#include "models/closed_model.hpp"

namespace wb::detail {

// One center with its expressions evaluated for the sample. Refers into the network it came
// from, which must outlive it.
struct Evaluated {
  const ServiceCenter* spec = nullptr;
  int servers = 1;
  double per_visit_ms = 0;
  double demand_ms = 0;  // per request
  double scv = 1;        // squared coefficient of variation of the service time
};

inline int whole_servers(const ServiceCenter& c, const Sample& sample) {
  double v = c.servers.eval(sample);
  double r = std::round(v);
  if (!(v >= 1) || std::abs(v - r) > 1e-9 || r > static_cast<double>(std::numeric_limits<int>::max())) {
    throw InputError(
        fmt::format("model center '{}': servers '{}' is {} for sample {} (need a whole number >= 1)", c.name,
                    c.servers.text(), v, sample.key()));
  }
  return static_cast<int>(r);
}

inline double service_scv(const ServiceCenter& c) {
  switch (c.distribution) {
    case ServiceDistribution::kExponential: return 1;
    case ServiceDistribution::kDeterministic: return 0;
    case ServiceDistribution::kLognormal: return c.cv * c.cv;
  }
  return 1;
}

// Every center of `net`, in declaration order (pools included: servers are their tokens).
inline std::vector<Evaluated> evaluate(const QueueNetwork& net, const Sample& sample) {
  std::vector<Evaluated> out;
  for (const auto& c : net.centers) {
    Evaluated e;
    e.spec = &c;
    e.servers = whole_servers(c, sample);
    if (!c.pool) {
      e.per_visit_ms = c.demand_ms.eval(sample);
      if (!(e.per_visit_ms > 0) || !std::isfinite(e.per_visit_ms)) {
        throw InputError(
            fmt::format("model center '{}': service_ms '{}' is {} for sample {} (need a positive time)",
                        c.name, c.demand_ms.text(), e.per_visit_ms, sample.key()));
      }
      e.demand_ms = c.visits * e.per_visit_ms;
      e.scv = service_scv(c);
    }
    out.push_back(e);
  }
  return out;
}

// A non-pool center as a product-form closed center (demand per request, ms).
inline ClosedCenter as_closed(const Evaluated& e) {
  return {e.spec->name, e.demand_ms, e.servers,
          e.spec->discipline == Discipline::kDelay ? ClosedCenterKind::kDelay : ClosedCenterKind::kQueue};
}

// A pool of the network with the indexes of its inner centers (in declaration order).
struct Pool {
  std::size_t index = 0;
  std::vector<std::size_t> inner;
};

inline std::vector<Pool> pools_of(const std::vector<Evaluated>& centers) {
  std::vector<Pool> pools;
  for (std::size_t i = 0; i < centers.size(); ++i) {
    if (!centers[i].spec->pool) continue;
    Pool p;
    p.index = i;
    for (std::size_t j = 0; j < centers.size(); ++j) {
      if (centers[j].spec->within == centers[i].spec->name) p.inner.push_back(j);
    }
    pools.push_back(std::move(p));
  }
  return pools;
}

}  // namespace wb::detail
