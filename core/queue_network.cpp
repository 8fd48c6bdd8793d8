#include "core/queue_network.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/config_section.hpp"
#include "core/error.hpp"

namespace wb {

const char* to_string(ServiceDistribution d) {
  switch (d) {
    case ServiceDistribution::kExponential: return "exponential";
    case ServiceDistribution::kLognormal: return "lognormal";
    case ServiceDistribution::kDeterministic: return "deterministic";
  }
  return "?";
}

const char* to_string(Discipline d) {
  switch (d) {
    case Discipline::kFcfs: return "fcfs";
    case Discipline::kPs: return "ps";
    case Discipline::kDelay: return "delay";
  }
  return "?";
}

const ServiceCenter* QueueNetwork::find(const std::string& name) const {
  for (const auto& c : centers) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

namespace {

Expr parse_expr(ConfigSection& s, const std::string& key, const std::string& text,
                const std::vector<std::string>& factor_names) {
  Expr e;
  try {
    e = Expr::parse(text);
  } catch (const InputError& err) {
    s.fail(key, err.what());
  }
  for (const auto& f : e.factors()) {
    if (std::find(factor_names.begin(), factor_names.end(), f) == factor_names.end()) {
      s.fail(key, fmt::format("expression '{}' names unknown factor '{}'", text, f));
    }
  }
  return e;
}

}  // namespace

QueueNetwork parse_queue_network(ConfigSection& section, const std::vector<std::string>& factor_names) {
  QueueNetwork net;
  auto tables = section.table_array("center");
  if (tables.empty()) section.fail("center", "at least one [[" + section.path() + ".center]] is required");
  for (auto& t : tables) {
    ServiceCenter c;
    c.name = t.string("name");
    if (net.find(c.name) != nullptr) t.fail("name", fmt::format("center '{}' is declared twice", c.name));
    std::string kind = t.string_or("kind", "queue");
    if (kind != "queue" && kind != "pool") t.fail("kind", "must be \"queue\" or \"pool\"");
    c.pool = kind == "pool";
    c.servers = parse_expr(t, "servers", t.optional_number_or_string("servers").value_or("1"), factor_names);
    if (c.servers.is_constant() && c.servers.eval(Sample()) < 1) t.fail("servers", "must be at least 1");
    if (!c.pool) {
      c.demand_ms = parse_expr(t, "service_ms", t.number_or_string("service_ms"), factor_names);
      if (c.demand_ms.is_constant() && !(c.demand_ms.eval(Sample()) > 0)) {
        t.fail("service_ms", "must be a positive time in ms");
      }
      c.visits = t.number_or("visits", 1.0);
      if (!(c.visits > 0)) t.fail("visits", "must be positive (a center nobody visits does not belong in the network)");
      std::string dist = t.string_or("distribution", "exponential");
      if (dist == "exponential") c.distribution = ServiceDistribution::kExponential;
      else if (dist == "lognormal") c.distribution = ServiceDistribution::kLognormal;
      else if (dist == "deterministic") c.distribution = ServiceDistribution::kDeterministic;
      else t.fail("distribution", "must be exponential, lognormal or deterministic");
      c.cv = t.number_or("cv", 1.0);
      if (!(c.cv > 0)) t.fail("cv", "must be positive");
      std::string disc = t.string_or("discipline", "fcfs");
      if (disc == "fcfs") c.discipline = Discipline::kFcfs;
      else if (disc == "ps") c.discipline = Discipline::kPs;
      else if (disc == "delay") c.discipline = Discipline::kDelay;
      else t.fail("discipline", "must be fcfs, ps or delay");
      c.within = t.string_or("within", "");
      if (!c.within.empty()) {
        const ServiceCenter* p = net.find(c.within);
        if (p == nullptr || !p->pool) {
          t.fail("within", fmt::format("'{}' is not a pool declared above this center", c.within));
        }
      }
    }
    t.finish();
    net.centers.push_back(std::move(c));
  }
  for (const auto& c : net.centers) {
    if (!c.pool) continue;
    bool used = std::any_of(net.centers.begin(), net.centers.end(), [&](const ServiceCenter& o) { return o.within == c.name; });
    if (!used) section.fail("center", fmt::format("pool '{}' has no center declared within it", c.name));
  }
  return net;
}

}  // namespace wb
