#include "controller/expectation_zcart.hpp"

#include <cmath>

#include "core/error.hpp"

namespace wb {

std::vector<Attribute> zcart_schema(const Config& config) {
  std::vector<Attribute> schema;
  for (const auto& f : config.factors()) {
    schema.push_back(Attribute{f.name, f.numeric ? AttributeKind::kNumeric : AttributeKind::kCategorical,
                               f.numeric ? std::vector<std::string>{} : f.levels});
  }
  return schema;
}

std::optional<std::vector<double>> encode_sample(const Config& config, const Sample& sample) {
  std::vector<double> out;
  for (const auto& f : config.factors()) {
    if (!sample.has(f.name)) return std::nullopt;
    auto idx = f.find_level(sample.value(f.name));
    if (!idx) return std::nullopt;
    out.push_back(f.numeric ? f.numeric_levels[*idx] : static_cast<double>(*idx));
  }
  return out;
}

std::vector<Observation> zcart_observations(const Config& config,
                                            const std::vector<MeasuredVsExpected>& rows) {
  std::vector<Observation> observations;
  for (const auto& r : rows) {
    if (r.search.status != "found" || !r.search.peak_rate || !r.expectation || !r.expectation->peak_rate)
      continue;
    if (!(*r.search.peak_rate > 0) || !(*r.expectation->peak_rate > 0)) continue;
    auto values = encode_sample(config, r.search.sample);
    if (!values) continue;
    observations.push_back(Observation{*values, *r.expectation->peak_rate, *r.search.peak_rate});
  }
  return observations;
}

ZCartAnswer zcart_predict(const ZCart& tree, const Config& config, const Sample& sample, double expected) {
  auto at = encode_sample(config, sample);
  if (!at) throw Error("zcart: the sample has no level of some factor: " + sample.key());
  auto p = tree.predict(*at, expected);
  ZCartAnswer a;
  a.value = p.value;
  a.n = static_cast<int>(p.n);
  if (p.n > 0 && std::isfinite(p.fidelity)) a.fidelity = p.fidelity;
  if (p.n >= 2 && std::isfinite(p.spread)) {
    a.low = p.value - 2 * p.spread;
    a.high = p.value + 2 * p.spread;
  }
  a.rule = p.rule;
  return a;
}

ZCartAnswer zcart_answer(const Config& config, const std::vector<MeasuredVsExpected>& rows,
                         const Sample& sample, double expected) {
  ZCartOptions options;
  options.tolerance = kExpectationTolerance;
  ZCart tree(zcart_schema(config), options);
  tree.fit(zcart_observations(config, rows));
  return zcart_predict(tree, config, sample, expected);
}

std::optional<ZCart> load_zcart(store::Store& store, const Config& config) {
  std::optional<std::string> text = store.zcart_tree(config.name());
  if (!text) return std::nullopt;
  ZCart tree = ZCart::from_json(nlohmann::json::parse(*text));
  std::vector<Attribute> want = zcart_schema(config);
  if (tree.schema().size() != want.size()) return std::nullopt;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (tree.schema()[i].name != want[i].name || tree.schema()[i].kind != want[i].kind ||
        tree.schema()[i].categories != want[i].categories)
      return std::nullopt;
  }
  return tree;
}

ZCart refit_zcart(store::Store& store, const Config& config, const ZCartOptions& options) {
  ZCart tree(zcart_schema(config), options);
  std::vector<Observation> obs = zcart_observations(config, measured_vs_expected(store, config.name()));
  tree.fit(obs);
  store.put_zcart_tree(config.name(), tree.to_json().dump(), static_cast<std::int64_t>(obs.size()));
  return tree;
}

}  // namespace wb

namespace wb {

ZCartOptions persisted_zcart_options(const ProbeConfig& probing) {
  ZCartOptions options;
  options.tolerance = probing.tolerance;
  options.min_leaf = probing.min_leaf;
  return options;
}

std::optional<ZCart> current_zcart(store::Store& store, const Config& config, const ProbeConfig& probing,
                                   const std::vector<MeasuredVsExpected>& rows) {
  std::optional<ZCart> tree = load_zcart(store, config);
  if (!tree) return std::nullopt;
  std::vector<Observation> obs = zcart_observations(config, rows);
  if (tree->observation_count() == obs.size()) return tree;
  ZCart fresh(zcart_schema(config), persisted_zcart_options(probing));
  fresh.fit(obs);
  return fresh;
}

}  // namespace wb
