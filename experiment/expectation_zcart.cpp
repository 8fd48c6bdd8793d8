#include "experiment/expectation_zcart.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "core/error.hpp"

namespace wb {

std::vector<Attribute> zcart_schema(const Config& config) { return ZCartAttributes(config).schema(); }

std::optional<std::vector<double>> encode_sample(const Config& config, const Sample& sample) {
  return ZCartAttributes(config).encode(sample);
}

std::vector<SampleObservation> sample_observations(const ZCartAttributes& attributes,
                                                   const std::vector<MeasuredVsExpected>& rows) {
  // One observation per sample: a sample measured twice (a probe and a surface point, a repeated
  // peak) is one piece of evidence, not two that agree perfectly. Its λ* is the geometric mean.
  std::vector<SampleObservation> out;
  std::map<std::string, std::pair<std::size_t, int>> index;  // sample -> (observation, searches)
  for (const auto& r : rows) {
    if (!learnable(r)) continue;
    const std::string key = r.search.sample.key();
    if (auto it = index.find(key); it != index.end()) {
      Observation& o = out[it->second.first].observation;
      const int k = ++it->second.second;
      o.observed = std::exp((std::log(o.observed) * (k - 1) + std::log(*r.search.peak_rate)) / k);
      continue;
    }
    auto values = attributes.encode(r.search.sample);
    if (!values) continue;
    index.emplace(key, std::make_pair(out.size(), 1));
    out.push_back(SampleObservation{
        r.search.sample, Observation{std::move(*values), *r.expectation->peak_rate, *r.search.peak_rate}});
  }
  return out;
}

std::vector<Observation> zcart_observations(const ZCartAttributes& attributes,
                                            const std::vector<MeasuredVsExpected>& rows) {
  std::vector<Observation> observations;
  for (auto& s : sample_observations(attributes, rows)) observations.push_back(std::move(s.observation));
  return observations;
}

std::vector<Observation> zcart_observations(const Config& config,
                                            const std::vector<MeasuredVsExpected>& rows) {
  return zcart_observations(ZCartAttributes(config), rows);
}

ZCartAnswer zcart_predict(const ZCart& tree, const ZCartAttributes& attributes, const Sample& sample,
                          double expected) {
  auto at = attributes.encode(sample);
  if (!at)
    throw Error("zcart: the sample has no level of some factor or no finite expected λ*: " + sample.key());
  auto p = tree.predict(*at, expected);
  ZCartAnswer a;
  a.value = p.value;
  a.n = static_cast<int>(p.n);
  if (p.n > 0 && std::isfinite(p.fidelity)) a.fidelity = p.fidelity;
  // A fitted ratio or cap costs the residuals a degree of freedom; a kept expectation does not.
  if (const LeafResiduals res = tree.leaf_residuals(*at); res.n > 0) {
    const double h = prediction_half_width(res.sum_sq, res.n, res.fitted ? 1 : 0,
                                           answer_prior(attributes.config()), kAnswerLevel);
    if (auto in = log_interval(p.value, h)) std::tie(a.low, a.high) = *in;
  }
  a.rule = p.rule;
  if (p.cap > 0) a.cap = p.cap;
  return a;
}

ZCartAnswer zcart_predict(const ZCart& tree, const Config& config, const Sample& sample, double expected) {
  return zcart_predict(tree, ZCartAttributes(config), sample, expected);
}

ZCartAnswer zcart_answer(const Config& config, const std::vector<MeasuredVsExpected>& rows,
                         const Sample& sample, double expected) {
  ZCartAttributes attributes(config);
  ZCartOptions options;
  options.tolerance = kExpectationTolerance;
  options.keep_expectation = true;
  options.keep_prior = answer_prior(config);
  ZCart tree(attributes.schema(), options);
  tree.fit(zcart_observations(attributes, rows));
  return zcart_predict(tree, attributes, sample, expected);
}

namespace {

std::optional<ZCart> load_zcart(store::Store& store, const Config& config,
                                const ZCartAttributes& attributes) {
  std::optional<std::string> text = store.zcart_tree(config.name());
  if (!text) return std::nullopt;
  ZCart tree = ZCart::from_json(nlohmann::json::parse(*text));
  const std::vector<Attribute>& want = attributes.schema();
  if (tree.schema().size() != want.size()) return std::nullopt;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (tree.schema()[i].name != want[i].name || tree.schema()[i].kind != want[i].kind ||
        tree.schema()[i].categories != want[i].categories)
      return std::nullopt;
  }
  return tree;
}

// An observation as the tree holds it: its attribute values, then its ratio observed/expected
// (computed as ObservationTable::add does, so the same search gives the same bits).
std::vector<double> held_key(const ObservationTable& t, std::size_t row) {
  std::vector<double> k;
  k.reserve(t.attributes() + 1);
  for (std::size_t a = 0; a < t.attributes(); ++a) k.push_back(t.value(row, a));
  k.push_back(t.ratio(row));
  return k;
}

std::vector<double> stored_key(const Observation& o) {
  std::vector<double> k = o.values;
  for (double& v : k)
    if (v == 0) v = 0;  // the table keeps -0.0 as 0.0
  k.push_back(o.observed / o.expected);
  return k;
}

// `tree` extended by add() with the observations of `all` it lacks, when it holds only
// observations of `all` and was built with `options`; else a fresh fit on `all`.
ZCartUpdate brought_up_to_date(std::optional<ZCart> tree, const ZCartAttributes& attributes,
                               const std::vector<Observation>& all, const ZCartOptions& options) {
  std::vector<const Observation*> missing;
  bool usable = tree && tree->options() == options && tree->observation_count() <= all.size() &&
                tree->nodes()[0].n == tree->observation_count();
  if (usable) {
    std::map<std::vector<double>, std::size_t> held;
    const ObservationTable& t = tree->observations();
    for (std::size_t r = 0; r < t.size(); ++r) ++held[held_key(t, r)];
    for (const auto& o : all) {
      auto it = held.find(stored_key(o));
      if (it != held.end() && it->second > 0)
        --it->second;
      else
        missing.push_back(&o);
    }
    usable = missing.size() == all.size() - tree->observation_count();  // every held one matched
  }
  if (!usable) {
    ZCart fresh(attributes.schema(), options);
    fresh.fit(all);
    return ZCartUpdate{std::move(fresh), 0, true};
  }
  for (const Observation* o : missing) tree->add(*o);
  return ZCartUpdate{std::move(*tree), missing.size(), false};
}

}  // namespace

std::optional<ZCart> load_zcart(store::Store& store, const Config& config) {
  return load_zcart(store, config, ZCartAttributes(config));
}

ZCart refit_zcart(store::Store& store, const Config& config, const ZCartOptions& options) {
  ZCartAttributes attributes(config);
  ZCart tree(attributes.schema(), options);
  std::vector<Observation> obs = zcart_observations(attributes, measured_vs_expected(store, config.name()));
  tree.fit(obs);
  store.put_zcart_tree(config.name(), tree.to_json().dump(), static_cast<std::int64_t>(obs.size()));
  return tree;
}

ZCartUpdate update_zcart(store::Store& store, const Config& config, const ZCartOptions& options) {
  return update_zcart(store, config, ZCartAttributes(config), options);
}

ZCartUpdate update_zcart(store::Store& store, const Config& config, const ZCartAttributes& attributes,
                         const ZCartOptions& options) {
  std::vector<Observation> obs = zcart_observations(attributes, measured_vs_expected(store, config.name()));
  ZCartUpdate u = brought_up_to_date(load_zcart(store, config, attributes), attributes, obs, options);
  store.put_zcart_tree(config.name(), u.tree.to_json().dump(), static_cast<std::int64_t>(obs.size()));
  return u;
}

ZCartOptions persisted_zcart_options(const Config& config, const ProbeConfig& probing) {
  ZCartOptions options;
  options.tolerance = probing.tolerance;
  options.min_leaf = probing.min_leaf;
  options.exact_add = true;
  options.keep_expectation = true;
  options.keep_prior = answer_prior(config);
  return options;
}

std::optional<ZCart> current_zcart(store::Store& store, const Config& config, const ProbeConfig& probing,
                                   const std::vector<MeasuredVsExpected>& rows) {
  ZCartAttributes attributes(config);
  std::optional<ZCart> tree = load_zcart(store, config, attributes);
  if (!tree) return std::nullopt;
  // The derived attributes solve the model once per sample: count first, encode only when the
  // store has searches the tree does not.
  const auto candidates = static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), learnable));
  if (tree->observation_count() == candidates) return tree;
  // Fewer held than searches: new samples, or a sample measured again (its merged λ* moved).
  std::vector<Observation> obs = zcart_observations(attributes, rows);
  return brought_up_to_date(std::move(tree), attributes, obs, persisted_zcart_options(config, probing)).tree;
}

}  // namespace wb
