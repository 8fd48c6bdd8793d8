#include "core/queue_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

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

// [model.attributes.FACTOR] or [sim.attributes.FACTOR]: NAME = { LEVEL = number, ... }
void parse_attributes(ConfigSection& section, const std::vector<Factor>& factors, QueueNetwork* net) {
  auto attrs = section.table("attributes");
  if (!attrs) return;
  std::vector<std::string> factor_names;
  factor_names.reserve(factors.size());
  for (const auto& f : factors) factor_names.push_back(f.name);
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
        double v = levels->number(
            level, Bounds::non_negative(std::numeric_limits<double>::max(), "must be a finite number >= 0"));
        a.by_level[level] = v;
      }
      if (a.by_level.empty()) per_factor->fail(name, "gives no level a value");
      // The simulator runs every sample it is given: a level without a value would fail each trial.
      const auto f =
          std::find_if(factors.begin(), factors.end(), [&](const Factor& x) { return x.name == factor; });
      for (const auto& level : f->levels) {
        if (section.path() == "sim" && a.by_level.count(level) == 0)
          per_factor->fail(name, fmt::format("gives level '{}' of factor '{}' no value", level, factor));
      }
      levels->finish();
      net->attributes.push_back(std::move(a));
    }
    per_factor->finish();
  }
  attrs->finish();
}

// [model.storage] (see StorageSpec); paths are relative to the config's directory.
void parse_storage(ConfigSection& section, const std::vector<Factor>& factors, QueueNetwork* net) {
  auto st = section.table("storage");
  if (!st) return;
  if (section.path() != "model") section.fail("storage", "is read by [model] only");
  const std::filesystem::path dir = std::filesystem::path(section.file()).parent_path();
  // Not checked here: the trace is often recorded with this very config, after it loads.
  auto resolve = [&](const std::string& key) {
    std::filesystem::path p(st->string(key));
    if (p.is_relative()) p = dir / p;
    return p.string();
  };
  StorageSpec spec;
  spec.where = section.where("storage");
  std::vector<std::string> factor_names;
  factor_names.reserve(factors.size());
  for (const auto& f : factors) factor_names.push_back(f.name);
  // "{factor}" in a path picks a file per level: a trace per workload, a disk per device ("what if
  // this moved to an SSD?").
  auto placeholders = [&](const std::string& key, const std::string& path) {
    std::vector<std::string> names;
    for (auto open = path.find('{'); open != std::string::npos; open = path.find('{', open + 1)) {
      const auto close = path.find('}', open);
      const std::string name = path.substr(open + 1, close == std::string::npos ? close : close - open - 1);
      if (close == std::string::npos ||
          std::find(factor_names.begin(), factor_names.end(), name) == factor_names.end())
        st->fail(key, fmt::format("'{{{}}}' is not a declared factor", name));
      names.push_back(name);
    }
    return names;
  };
  spec.trace = resolve("trace");
  spec.trace_factors = placeholders("trace", spec.trace);
  spec.cache_mb = parse_expr(*st, "cache_mb", st->number_or_string("cache_mb"), factor_names);
  const double kb = st->number_or("block_kb", 4, Bounds::positive(1 << 20, "must be a size in KiB, > 0"));
  spec.block_bytes = static_cast<std::uint64_t>(std::llround(kb * 1024));
  if (spec.block_bytes < 1) st->fail("block_kb", "must be at least one byte");
  spec.policy = st->string_or("policy", spec.policy);
  if (st->has("disk")) {
    spec.disk = resolve("disk");
    spec.disk_factors = placeholders("disk", spec.disk);
  }
  if (st->has("classifier")) spec.classifier = resolve("classifier");
  spec.warm_fraction = st->number_or("warm_fraction", spec.warm_fraction,
                                     Bounds::non_negative(0.9, "must be a share from 0 to 0.9"));
  st->finish();
  net->storage = std::move(spec);
}

bool names_storage_attribute(const QueueNetwork& net, const Expr& e) {
  if (!net.storage) return false;
  const auto& names = storage_attribute_names();
  return std::any_of(e.factors().begin(), e.factors().end(), [&](const std::string& f) {
    return std::find(names.begin(), names.end(), f) != names.end();
  });
}

// What an expression of a center must evaluate to, for every sample the config can name.
struct ExprRule {
  double low;   // exclusive when `whole` is false, else inclusive
  double high;  // inclusive
  bool whole;   // a whole number (a count of servers)
  const char* rule;
};
// Up to int: the models solve any count in bounded time (models/erlang.hpp) and the simulator
// keeps counts, not one state per server.
constexpr ExprRule kServers{1, 2147483647, true, "must be a whole number of servers from 1 to 2147483647"};
constexpr ExprRule kServiceMs{0, 1e9, false, "must be a positive time in ms, at most 1e9"};
constexpr ExprRule kVisits{0, 1e6, false,
                           "must be positive (a center nobody visits does not belong in the network), at "
                           "most 1000000"};

// Beyond this many level combinations an expression is checked one factor at a time (the other
// factors at their first level), which keeps a config with many factors quick to load.
constexpr std::size_t kMaxCombinations = 100000;

// Evaluates `e` for every combination of the levels of the factors it names (through workload
// attributes too) and fails at `key` with the first sample that breaks `rule`. Levels an attribute
// gives no value are skipped; QueueNetwork::with_attributes() reports them where needed.
void check_every_level(ConfigSection& t, const std::string& key, const Expr& e,
                       const std::vector<Factor>& factors, const QueueNetwork& net, const ExprRule& rule) {
  // Storage attributes come from a trace replay per sample: effective_model() checks those.
  if (names_storage_attribute(net, e)) return;
  std::vector<const Factor*> varied;
  auto vary = [&](const std::string& name) {
    for (const auto& f : factors) {
      if (f.name == name && std::find(varied.begin(), varied.end(), &f) == varied.end()) varied.push_back(&f);
    }
  };
  for (const auto& name : e.factors()) {
    vary(name);
    for (const auto& a : net.attributes) {
      if (a.name == name) vary(a.factor);
    }
  }
  auto check = [&](const std::vector<std::size_t>& at) {
    Sample s;
    for (std::size_t i = 0; i < varied.size(); ++i) s.set(varied[i]->name, varied[i]->levels[at[i]]);
    for (const auto& a : net.attributes) {
      if (!s.has(a.factor)) continue;
      auto it = a.by_level.find(s.value(a.factor));
      if (it == a.by_level.end()) return;
      s.set(a.name, format_number(it->second));
    }
    const std::string shown = varied.empty() ? "" : " for " + s.key();
    double v = 0;
    try {
      v = e.eval(s);
    } catch (const Error& err) {
      t.fail(key, fmt::format("'{}' cannot be evaluated{}: {}", e.text(), shown, err.what()));
    }
    const bool ok = std::isfinite(v) && v <= rule.high &&
                    (rule.whole ? v >= rule.low && v == std::floor(v) : v > rule.low);
    if (ok) return;
    if (e.is_constant()) t.fail(key, fmt::format("{} (got {})", rule.rule, v));
    t.fail(key, fmt::format("'{}' is {}{}; {}", e.text(), v, shown, rule.rule));
  };
  std::size_t combinations = 1;
  for (const Factor* f : varied)
    combinations = std::min(combinations * f->levels.size(), kMaxCombinations + 1);
  std::vector<std::size_t> at(varied.size(), 0);
  if (combinations <= kMaxCombinations) {
    for (;;) {  // odometer over the levels
      check(at);
      std::size_t i = 0;
      while (i < at.size() && ++at[i] == varied[i]->levels.size()) at[i++] = 0;
      if (i == at.size()) break;
    }
    return;
  }
  for (std::size_t i = 0; i < varied.size(); ++i) {
    for (std::size_t l = 0; l < varied[i]->levels.size(); ++l) {
      at.assign(varied.size(), 0);
      at[i] = l;
      check(at);
    }
  }
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

QueueNetwork parse_queue_network(ConfigSection& section, const std::vector<Factor>& factors) {
  std::vector<std::string> factor_names_in;
  factor_names_in.reserve(factors.size());
  for (const auto& f : factors) factor_names_in.push_back(f.name);
  QueueNetwork net;
  parse_attributes(section, factors, &net);
  parse_storage(section, factors, &net);
  std::vector<std::string> factor_names = factor_names_in;
  for (const auto& a : net.attributes) factor_names.push_back(a.name);
  if (net.storage) {
    for (const auto& n : storage_attribute_names()) factor_names.push_back(n);
  }
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
    check_every_level(t, "servers", c.servers, factors, net, kServers);
    if (!c.pool) {
      c.demand_ms = parse_expr(t, "service_ms", t.number_or_string("service_ms"), factor_names);
      check_every_level(t, "service_ms", c.demand_ms, factors, net, kServiceMs);
      Expr visits =
          parse_expr(t, "visits", t.optional_number_or_string("visits").value_or("1"), factor_names);
      check_every_level(t, "visits", visits, factors, net, kVisits);
      if (visits.is_constant()) {
        c.visits = visits.eval(Sample());
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
      c.cv = t.number_or("cv", 1.0, Bounds::positive(100, "must be positive, at most 100"));
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
