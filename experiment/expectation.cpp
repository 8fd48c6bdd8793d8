#include "experiment/expectation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "models/closed_network.hpp"

namespace wb {

namespace {

void add_unique(std::vector<std::string>* out, const std::string& v) {
  if (std::find(out->begin(), out->end(), v) == out->end()) out->push_back(v);
}

void add_expr_factors(const QueueNetwork& net, const Expr& e, std::vector<std::string>* out) {
  for (const auto& name : e.factors()) {
    auto attr = std::find_if(net.attributes.begin(), net.attributes.end(),
                             [&](const WorkloadAttribute& a) { return a.name == name; });
    add_unique(out, attr == net.attributes.end() ? name : attr->factor);
  }
}

const QueueNetwork& model_of(const Config& config) {
  if (!config.model()) {
    throw InputError(
        fmt::format("{}: no [model] section: the expectation model needs [[model.center]] tables "
                    "(see configs/sim.toml)",
                    config.file()));
  }
  return *config.model();
}

}  // namespace

std::vector<std::string> center_factors(const QueueNetwork& net, const ServiceCenter& center) {
  std::vector<std::string> out;
  add_expr_factors(net, center.demand_ms, &out);
  if (center.visits_expr) add_expr_factors(net, *center.visits_expr, &out);
  return out;
}

const CalibratedDemand* applicable_calibration(const QueueNetwork& net, const ServiceCenter& center,
                                               const Sample& sample,
                                               const std::vector<CalibratedDemand>& calibrations) {
  std::vector<std::string> depends = center_factors(net, center);
  for (auto it = calibrations.rbegin(); it != calibrations.rend(); ++it) {
    if (it->center != center.name) continue;
    bool agrees = std::all_of(depends.begin(), depends.end(), [&](const std::string& f) {
      return it->sample.has(f) && sample.has(f) && it->sample.value(f) == sample.value(f);
    });
    if (agrees) return &*it;
  }
  return nullptr;
}

EffectiveModel effective_model(const Config& config, const Sample& sample,
                               const std::vector<CalibratedDemand>& calibrations) {
  const QueueNetwork& net = model_of(config);
  EffectiveModel m;
  m.sample = net.with_attributes(sample);
  m.network = net.resolved(sample);
  for (auto& c : m.network.centers) {
    if (c.pool) continue;
    const ServiceCenter* original = net.find(c.name);
    const CalibratedDemand* cal = applicable_calibration(net, *original, sample, calibrations);
    if (cal == nullptr) continue;
    c.demand_ms = Expr::constant(cal->demand_ms);
    if (cal->visits) c.visits = *cal->visits;
    m.calibrated.push_back(c.name);
  }
  return m;
}

PeakExpectation expect_peak(const Config& config, const Sample& sample,
                            const std::vector<CalibratedDemand>& calibrations, std::optional<double> rate,
                            const std::function<void()>& between_solves) {
  EffectiveModel m = effective_model(config, sample, calibrations);
  PeakExpectation e;
  e.calibrated = m.calibrated;
  if (between_solves) between_solves();
  e.saturation_rate = saturation_rate(m.network, m.sample);
  const double r_sat = config.peak().r_sat_ms, s = config.peak().region.width;
  // λ* first: its solves bracket the region's ends.
  std::vector<double> peaks =
      predicted_peaks(m.network, m.sample, {r_sat, r_sat * (1 - s), r_sat * (1 + s)}, between_solves);
  e.peak_rate = peaks[0];
  e.region_low = peaks[1];
  e.region_high = peaks[2];
  double at = rate ? *rate : (std::isfinite(e.peak_rate) ? e.peak_rate : 0.0);
  if (at < 0 || !std::isfinite(at)) throw InputError(fmt::format("rate {} is not a finite rate >= 0", at));
  if (between_solves) between_solves();
  e.at = solve_open(m.network, m.sample, at);
  return e;
}

ClosedResult expect_closed(const Config& config, const Sample& sample,
                           const std::vector<CalibratedDemand>& calibrations, int clients, double think_ms) {
  if (clients < 1) throw InputError("--clients must be at least 1");
  if (!(think_ms >= 0) || !std::isfinite(think_ms)) throw InputError("--think must be a time >= 0 ms");
  EffectiveModel m = effective_model(config, sample, calibrations);
  return solve_closed(m.network, m.sample, clients, think_ms);
}

}  // namespace wb
