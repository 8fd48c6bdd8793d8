#include "experiment/zcart_attributes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "experiment/expectation.hpp"
#include "harness/mix_figures.hpp"
#include "models/io_classify.hpp"
#include "models/open_network.hpp"

namespace wb {

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// The factors an expression names, attributes traced back to the factor that selects them.
void add_expr_factors(const QueueNetwork& net, const Expr& e, std::set<std::string>* out) {
  const auto& storage_names = storage_attribute_names();
  for (const auto& name : e.factors()) {
    if (net.storage && std::find(storage_names.begin(), storage_names.end(), name) != storage_names.end()) {
      add_expr_factors(net, net.storage->cache_mb, out);  // the cache size's and the disk's factors
      out->insert(net.storage->disk_factors.begin(), net.storage->disk_factors.end());
      continue;
    }
    auto attr = std::find_if(net.attributes.begin(), net.attributes.end(),
                             [&](const WorkloadAttribute& a) { return a.name == name; });
    out->insert(attr == net.attributes.end() ? name : attr->factor);
  }
}

// `names` in the config's factor order.
std::vector<std::string> in_factor_order(const Config& config, const std::set<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& f : config.factors())
    if (names.count(f.name) != 0) out.push_back(f.name);
  return out;
}

}  // namespace

void ZCartAttributes::add(Attribute a, std::vector<std::string> depends) {
  for (const auto& s : schema_)
    if (s.name == a.name) return;
  schema_.push_back(std::move(a));
  depends_.push_back(std::move(depends));
}

ZCartAttributes::ZCartAttributes(const Config& config) : config_(&config) {
  for (const auto& f : config.factors()) {
    add(Attribute{f.name, f.numeric ? AttributeKind::kNumeric : AttributeKind::kCategorical,
                  f.numeric ? std::vector<std::string>{} : f.levels},
        {f.name});
  }
  factor_count_ = schema_.size();

  auto add_workload = [&](const std::string& name, std::size_t factor, std::vector<double> values) {
    if (values.empty()) return;
    bool varies = std::any_of(values.begin(), values.end(), [&](double v) { return v != values[0]; });
    if (!varies) return;
    std::size_t before = schema_.size();
    add(Attribute{name, AttributeKind::kNumeric, {}}, {config.factors()[factor].name});
    if (schema_.size() > before) workload_.push_back(ByLevel{factor, std::move(values)});
  };
  const auto& model = config.model();
  if (model) {
    for (const auto& wa : model->attributes) {
      auto f = std::find_if(config.factors().begin(), config.factors().end(),
                            [&](const Factor& x) { return x.name == wa.factor; });
      if (f == config.factors().end()) continue;
      std::vector<double> values;
      for (const auto& level : f->levels) {
        auto it = wa.by_level.find(level);
        values.push_back(it == wa.by_level.end() ? kMissing : it->second);
      }
      add_workload(wa.name, static_cast<std::size_t>(f - config.factors().begin()), std::move(values));
    }
  }
  if (auto mix = mix_levels(config)) {
    auto column = [&](double MixFigures::*field) {
      std::vector<double> v;
      for (const auto& m : mix->second) v.push_back(m.*field);
      return v;
    };
    add_workload("read_fraction", mix->first, column(&MixFigures::read));
    add_workload("write_fraction", mix->first, column(&MixFigures::write));
    add_workload("sequential_fraction", mix->first, column(&MixFigures::sequential));
    add_workload("mean_size_bytes", mix->first, column(&MixFigures::mean_size));
  }
  if (!model) return;

  std::set<std::string> all;
  std::vector<std::string> centers;
  for (const auto& c : model->centers) {
    centers.push_back(c.name);
    add_expr_factors(*model, c.servers, &all);
    add_expr_factors(*model, c.demand_ms, &all);
    if (c.visits_expr) add_expr_factors(*model, *c.visits_expr, &all);
  }
  std::vector<std::string> depends = in_factor_order(config, all);
  std::size_t before = schema_.size();
  add(Attribute{"expected_peak", AttributeKind::kNumeric, {}}, depends);
  add(Attribute{"bottleneck", AttributeKind::kCategorical, centers}, depends);
  add(Attribute{"bottleneck_util", AttributeKind::kNumeric, {}}, depends);
  // All three or none: compute() fills them together.
  derived_ = schema_.size() == before + 3;
  if (!derived_) schema_.resize(before), depends_.resize(before);
  for (const auto& c : model->centers) {
    const ServiceCenter* pool = c.within.empty() ? nullptr : model->find(c.within);
    if (pool == nullptr || pool->servers.is_constant() || c.servers.is_constant()) continue;
    std::set<std::string> both;
    add_expr_factors(*model, pool->servers, &both);
    add_expr_factors(*model, c.servers, &both);
    std::size_t n = schema_.size();
    add(Attribute{pool->name + "_per_" + c.name, AttributeKind::kNumeric, {}}, in_factor_order(config, both));
    if (schema_.size() > n) ratios_.emplace_back(pool->name, c.name);
  }
  if (derived_) add_lambda_max(depends);
  // [model.storage]'s predictions for the sample: the shares of operations the cache answers and
  // the disk gets (the I/O classes a trace's classification would find), and the disk's time.
  if (model->storage) {
    std::set<std::string> own;
    add_expr_factors(*model, model->storage->cache_mb, &own);
    const std::size_t n = schema_.size();
    add(Attribute{"cache_hit_rate", AttributeKind::kNumeric, {}}, in_factor_order(config, own));
    add(Attribute{"disk_visits", AttributeKind::kNumeric, {}}, in_factor_order(config, own));
    storage_ = schema_.size() == n + 2;
    if (!storage_) schema_.resize(n), depends_.resize(n);
    // The classified trace's I/O class shares, when the trace differs between samples.
    const StorageSpec& spec = *model->storage;
    if (storage_ && !spec.classifier.empty() && !spec.trace_factors.empty()) {
      try {
        const std::set<std::string> by(spec.trace_factors.begin(), spec.trace_factors.end());
        const IoClassifier classifier = read_classifier(spec.classifier);
        for (const auto& c : classifier.classes()) {
          const std::size_t k = schema_.size();
          add(Attribute{c.name + "_fraction", AttributeKind::kNumeric, {}}, in_factor_order(config, by));
          if (schema_.size() > k) class_attributes_.push_back(c.name + "_fraction");
        }
      } catch (const InputError&) {  // unreadable: whatif names the file; the tree does without
      }
    }
  }
}

void ZCartAttributes::add_lambda_max(const std::vector<std::string>& depends) {
  const auto& model = config_->model();
  const Config& config = *config_;
  // C_lambda_max: the rate at which center C saturates (λ* over its utilization at λ*), for each
  // queueing center whose capacity depends on a factor. A pool's depends on the centers it holds.
  for (const auto& c : model->centers) {
    if (c.discipline == Discipline::kDelay) continue;
    std::set<std::string> own;
    add_expr_factors(*model, c.servers, &own);
    if (!c.pool) add_expr_factors(*model, c.demand_ms, &own);
    if (c.visits_expr) add_expr_factors(*model, *c.visits_expr, &own);
    if (own.empty()) continue;  // the same capacity at every sample
    std::size_t n = schema_.size();
    add(Attribute{c.name + "_lambda_max", AttributeKind::kNumeric, {}},
        c.pool ? depends : in_factor_order(config, own));
    if (schema_.size() > n) lambda_max_.push_back(c.name);
  }
}

std::optional<std::vector<double>> ZCartAttributes::encode(const Sample& sample) const {
  const std::string key = sample.key();
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, compute(sample)).first;
  return it->second;
}

std::optional<std::vector<double>> ZCartAttributes::compute(const Sample& sample) const {
  const Config& config = *config_;
  std::vector<double> out;
  out.reserve(schema_.size());
  std::vector<std::size_t> level(config.factors().size());
  for (std::size_t i = 0; i < config.factors().size(); ++i) {
    const Factor& f = config.factors()[i];
    if (!sample.has(f.name)) return std::nullopt;
    auto idx = f.find_level(sample.value(f.name));
    if (f.numeric && !idx) {  // a point between or beyond the levels: the value is the attribute
      out.push_back(sample.numeric(f.name));
      level[i] = f.levels.size();  // no level: a workload attribute of this factor is unknown
      continue;
    }
    if (!idx) return std::nullopt;
    level[i] = *idx;
    out.push_back(f.numeric ? f.numeric_levels[*idx] : static_cast<double>(*idx));
  }
  for (const auto& w : workload_) {
    if (level[w.factor] >= w.values.size()) return std::nullopt;
    double v = w.values[level[w.factor]];
    if (!std::isfinite(v)) return std::nullopt;
    out.push_back(v);
  }
  if (!derived_ && ratios_.empty() && lambda_max_.empty() && !storage_) return out;
  try {
    EffectiveModel m = effective_model(config, sample, {});
    const double peak = predicted_peak(m.network, m.sample, config.peak().r_sat_ms);
    if (!(peak > 0) || !std::isfinite(peak)) return std::nullopt;
    OpenResult at = solve_open(m.network, m.sample, peak);
    auto center = [&](const std::string& name) -> const CenterResult& {
      auto c = std::find_if(at.centers.begin(), at.centers.end(),
                            [&](const CenterResult& x) { return x.name == name; });
      if (c == at.centers.end()) throw InputError("zcart attributes: no center " + name);
      return *c;
    };
    if (derived_) {
      out.push_back(peak);
      const auto& names = config.model()->centers;
      auto b = std::find_if(names.begin(), names.end(),
                            [&](const ServiceCenter& c) { return c.name == at.bottleneck; });
      if (b == names.end()) return std::nullopt;
      out.push_back(static_cast<double>(b - names.begin()));
      out.push_back(center(at.bottleneck).utilization);
    }
    for (const auto& [pool, inner] : ratios_)
      out.push_back(static_cast<double>(center(pool).servers) / static_cast<double>(center(inner).servers));
    for (const auto& name : lambda_max_) {
      const double u = center(name).utilization;
      if (!(u > 0)) return std::nullopt;
      out.push_back(peak / u);
    }
    if (storage_) {
      if (!m.storage) return std::nullopt;
      out.push_back(m.storage->read_hit_rate);
      out.push_back(m.storage->disk_visits);
      for (const auto& name : class_attributes_) {
        auto it = m.storage->class_attributes.find(name);
        if (it == m.storage->class_attributes.end()) return std::nullopt;
        out.push_back(it->second);
      }
    }
  } catch (const Error&) {
    return std::nullopt;  // unsolvable for this sample: no prior, nothing for Z-CART to correct
  }
  for (double v : out)
    if (!std::isfinite(v)) return std::nullopt;
  return out;
}

std::vector<RankedAttribute> probe_ranking(const ZCartAttributes& attributes,
                                           const std::vector<RankedAttribute>& ranked) {
  const auto& schema = attributes.schema();
  auto index_of = [&](const std::string& name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < schema.size(); ++i)
      if (schema[i].name == name) return i;
    return std::nullopt;
  };
  auto rank_of = [&](const std::string& name) {
    for (std::size_t r = 0; r < ranked.size(); ++r)
      if (ranked[r].name == name) return r;
    return ranked.size() + index_of(name).value_or(schema.size());
  };
  std::vector<RankedAttribute> out;
  std::set<std::string> seen;
  for (const auto& r : ranked) {
    std::optional<std::size_t> i = index_of(r.name);
    std::vector<std::string> factors = i ? attributes.factors_of(*i) : std::vector<std::string>{r.name};
    std::stable_sort(factors.begin(), factors.end(),
                     [&](const std::string& x, const std::string& y) { return rank_of(x) < rank_of(y); });
    for (const auto& f : factors)
      if (seen.insert(f).second) out.push_back(RankedAttribute{f, r.gain});
  }
  return out;
}

}  // namespace wb
