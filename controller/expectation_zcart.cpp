#include "controller/expectation_zcart.hpp"

#include <cmath>

#include "models/zcart.hpp"

namespace wb {

namespace {

// One value per factor: the number of a numeric level, the index of a categorical one; nullopt
// when the sample has no (known) level of some factor.
std::optional<std::vector<double>> encode(const Config& config, const Sample& sample) {
  std::vector<double> out;
  for (const auto& f : config.factors()) {
    if (!sample.has(f.name)) return std::nullopt;
    auto idx = f.find_level(sample.value(f.name));
    if (!idx) return std::nullopt;
    out.push_back(f.numeric ? f.numeric_levels[*idx] : static_cast<double>(*idx));
  }
  return out;
}

}  // namespace

ZCartAnswer zcart_answer(const Config& config, const std::vector<MeasuredVsExpected>& rows,
                         const Sample& sample, double expected) {
  std::vector<Attribute> schema;
  for (const auto& f : config.factors()) {
    schema.push_back(Attribute{f.name, f.numeric ? AttributeKind::kNumeric : AttributeKind::kCategorical,
                               f.numeric ? std::vector<std::string>{} : f.levels});
  }
  ZCartOptions options;
  options.tolerance = kExpectationTolerance;
  ZCart tree(schema, options);
  std::vector<Observation> observations;
  for (const auto& r : rows) {
    if (r.search.status != "found" || !r.search.peak_rate || !r.expectation || !r.expectation->peak_rate)
      continue;
    if (!(*r.search.peak_rate > 0) || !(*r.expectation->peak_rate > 0)) continue;
    auto values = encode(config, r.search.sample);
    if (!values) continue;
    observations.push_back(Observation{*values, *r.expectation->peak_rate, *r.search.peak_rate});
  }
  tree.fit(observations);
  ZCartAnswer a;
  auto at = encode(config, sample);
  auto p = tree.predict(*at, expected);
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

}  // namespace wb
