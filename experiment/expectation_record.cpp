#include "experiment/expectation_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include "core/error.hpp"
#include "experiment/json_values.hpp"
#include "experiment/leases.hpp"

namespace wb {

std::vector<CalibratedDemand> load_calibrations(store::Store& store, const Config& config) {
  std::vector<CalibratedDemand> out;
  for (auto& row : store.calibrations(config.name())) {
    out.push_back(
        CalibratedDemand{row.center, row.sample, row.demand_ms, row.visits, row.source, row.created_at});
  }
  return out;
}

nlohmann::json centers_json(const OpenResult& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : r.centers) {
    out.push_back({{"name", c.name},
                   {"pool", c.pool},
                   {"servers", c.servers},
                   {"demand_ms", c.demand_ms},
                   {"utilization", c.utilization},
                   {"response_ms", number_or_null(c.response_ms)}});
  }
  return out;
}

bool record_expectation(store::Store& store, const Config& config, const Sample& sample,
                        std::int64_t search_id, std::ostream& log) {
  if (!config.model()) return false;
  try {
    PeakExpectation e = expect_peak(config, sample, load_calibrations(store, config));
    store::Store::ExpectationRow row;
    row.search_id = search_id;
    row.peak_rate = finite(e.peak_rate);
    row.saturation_rate = finite(e.saturation_rate);
    row.bottleneck = e.at.bottleneck;
    row.calibrated_json = nlohmann::json(e.calibrated).dump();
    row.detail_json = nlohmann::json{{"rate", e.at.lambda}, {"centers", centers_json(e.at)}}.dump();
    store.put_expectation(row);
    return true;
  } catch (const InputError& err) {
    log << "workbench: no expectation stored for this search: " << err.what() << "\n";
    return false;
  }
}

bool learnable(const MeasuredVsExpected& r) {
  if (!has_peak(r.search.status) || !r.search.peak_rate || !r.expectation || !r.expectation->peak_rate)
    return false;
  const double m = *r.search.peak_rate, e = *r.expectation->peak_rate;
  return m > 0 && e > 0 && std::isfinite(m) && std::isfinite(e);
}

std::vector<MeasuredVsExpected> measured_vs_expected(store::Store& store, const std::string& testbed) {
  std::vector<MeasuredVsExpected> out;
  for (std::int64_t id : store.search_ids(testbed)) {
    MeasuredVsExpected m;
    m.search = *store.search(id);
    m.expectation = store.expectation(id);
    if (m.search.peak_rate && *m.search.peak_rate > 0 && m.expectation && m.expectation->peak_rate) {
      m.gap = (*m.expectation->peak_rate - *m.search.peak_rate) / *m.search.peak_rate;
    }
    out.push_back(std::move(m));
  }
  return out;
}

SpreadPrior answer_prior(const Config& config) {
  const Target& target = config.peak().target;
  return SpreadPrior{(1 - target.accuracy) / t_quantile(target.confidence, 1e9), 2};
}

std::optional<std::pair<double, double>> log_interval(double value, double h) {
  if (!std::isfinite(h) || !std::isfinite(value)) return std::nullopt;
  return std::make_pair(value * std::exp(-h), value * std::exp(h));
}

Fidelity expectation_fidelity(const std::vector<MeasuredVsExpected>& rows) {
  std::map<std::string, std::pair<double, int>> by_sample;  // key -> (Σ log(measured/expected), searches)
  for (const auto& r : rows) {
    if (!has_peak(r.search.status) || !r.gap) continue;
    auto& [sum_log, k] = by_sample[r.search.sample.key()];
    sum_log += -std::log1p(*r.gap);  // measured / expected = 1 / (1 + gap)
    ++k;
  }
  Fidelity f;
  int within = 0;
  for (const auto& [key, s] : by_sample) {
    const double log_ratio = s.first / s.second;
    ++f.n;
    f.log_gap_ss += log_ratio * log_ratio;
    if (std::abs(std::exp(-log_ratio) - 1) <= kExpectationTolerance) ++within;  // |gap| of the mean
  }
  if (f.n > 0) f.value = static_cast<double>(within) / f.n;
  return f;
}

TestbedReport testbed_report(const Config& config, const std::string& store_path, std::ostream& log) {
  store::Store store(store_path);
  Leases(store.path(), config.lease_timeout_s()).sweep(store, log);
  TestbedReport r;
  r.store_path = store.path();
  r.searches = measured_vs_expected(store, config.name());
  r.fidelity = expectation_fidelity(r.searches);
  r.mismatches = store.mismatches(config.name(), false, std::nullopt);
  return r;
}

}  // namespace wb
