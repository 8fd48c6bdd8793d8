#include "core/queue_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

// [model.attributes.FACTOR] NAME = { LEVEL = number, ... }
void parse_attributes(ConfigSection& section, const std::vector<std::string>& factor_names,
                      QueueNetwork* net) {
  auto attrs = section.table("attributes");
  if (!attrs) return;
  if (section.path() != "model") {
    attrs->fail_here("workload attributes are read by the expectation model only ([model.attributes])");
  }
  for (const auto& factor : attrs->keys()) {
    if (std::find(factor_names.begin(), factor_names.end(), factor) == factor_names.end()) {
      attrs->fail(factor, fmt::format("'{}' is not a declared factor", factor));
    }
    auto per_factor = attrs->table(factor);
    if (!per_factor) attrs->fail(factor, "must be a table of attributes: NAME = { LEVEL = number, ... }");
    for (const auto& name : per_factor->keys()) {
      if (std::find(factor_names.begin(), factor_names.end(), name) != factor_names.end()) {
        per_factor->fail(name, fmt::format("attribute '{}' has the name of a factor", name));
      }
      for (const auto& other : net->attributes) {
        if (other.name == name) per_factor->fail(name, fmt::format("attribute '{}' is declared twice", name));
      }
      WorkloadAttribute a;
      a.factor = factor;
      a.name = name;
      a.where = per_factor->where(name);
      auto levels = per_factor->table(name);
      if (!levels) per_factor->fail(name, "must be a table { LEVEL = number, ... }");
      for (const auto& level : levels->keys()) {
        double v = levels->number(level);
        if (!std::isfinite(v) || v < 0) levels->fail(level, "must be a finite number >= 0");
        a.by_level[level] = v;
      }
      if (a.by_level.empty()) per_factor->fail(name, "gives no level a value");
      levels->finish();
      net->attributes.push_back(std::move(a));
    }
    per_factor->finish();
  }
  attrs->finish();
}

}  // namespace

std::vector<std::string> QueueNetwork::attribute_names() const {
  std::vector<std::string> out;
  for (const auto& a : attributes) out.push_back(a.name);
  return out;
}

Sample QueueNetwork::with_attributes(const Sample& sample) const {
  Sample out = sample;
  for (const auto& a : attributes) {
    const std::string& level = sample.value(a.factor);
    auto it = a.by_level.find(level);
    if (it == a.by_level.end()) {
      throw InputError(fmt::format("{}: no value for level '{}' of factor '{}'", a.where, level, a.factor));
    }
    out.set(a.name, format_number(it->second));
  }
  return out;
}

QueueNetwork QueueNetwork::resolved(const Sample& sample) const {
  QueueNetwork out = *this;
  Sample s = with_attributes(sample);
  for (auto& c : out.centers) {
    if (!c.visits_expr) continue;
    c.visits = c.visits_expr->eval(s);
    if (!(c.visits > 0) || !std::isfinite(c.visits)) {
      throw InputError(fmt::format("center '{}': visits '{}' is {} for {} (must be positive)", c.name,
                                   c.visits_expr->text(), c.visits, sample.key()));
    }
    c.visits_expr.reset();
  }
  return out;
}

QueueNetwork parse_queue_network(ConfigSection& section, const std::vector<std::string>& factor_names_in) {
  QueueNetwork net;
  parse_attributes(section, factor_names_in, &net);
  std::vector<std::string> factor_names = factor_names_in;
  for (const auto& a : net.attributes) factor_names.push_back(a.name);
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
      Expr visits =
          parse_expr(t, "visits", t.optional_number_or_string("visits").value_or("1"), factor_names);
      if (visits.is_constant()) {
        c.visits = visits.eval(Sample());
        if (!(c.visits > 0))
          t.fail("visits", "must be positive (a center nobody visits does not belong in the network)");
      } else if (section.path() != "model") {
        t.fail("visits", "must be a number here (visits as an expression are read by [model] only)");
      } else {
        c.visits_expr = visits;
      }
      std::string dist = t.string_or("distribution", "exponential");
      if (dist == "exponential")
        c.distribution = ServiceDistribution::kExponential;
      else if (dist == "lognormal")
        c.distribution = ServiceDistribution::kLognormal;
      else if (dist == "deterministic")
        c.distribution = ServiceDistribution::kDeterministic;
      else
        t.fail("distribution", "must be exponential, lognormal or deterministic");
      c.cv = t.number_or("cv", 1.0);
      if (!(c.cv > 0)) t.fail("cv", "must be positive");
      std::string disc = t.string_or("discipline", "fcfs");
      if (disc == "fcfs")
        c.discipline = Discipline::kFcfs;
      else if (disc == "ps")
        c.discipline = Discipline::kPs;
      else if (disc == "delay")
        c.discipline = Discipline::kDelay;
      else
        t.fail("discipline", "must be fcfs, ps or delay");
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
    bool used = std::any_of(net.centers.begin(), net.centers.end(),
                            [&](const ServiceCenter& o) { return o.within == c.name; });
    if (!used) section.fail("center", fmt::format("pool '{}' has no center declared within it", c.name));
  }
  return net;
}

}  // namespace wb
