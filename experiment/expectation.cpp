#include "experiment/expectation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "core/error.hpp"
#include "models/closed_network.hpp"
#include "models/disk_params_io.hpp"

namespace wb {

namespace {

void add_unique(std::vector<std::string>* out, const std::string& v) {
  if (std::find(out->begin(), out->end(), v) == out->end()) out->push_back(v);
}

void add_expr_factors(const QueueNetwork& net, const Expr& e, std::vector<std::string>* out) {
  const auto& storage_names = storage_attribute_names();
  for (const auto& name : e.factors()) {
    // A storage attribute depends on what the cache size does.
    if (net.storage && std::find(storage_names.begin(), storage_names.end(), name) != storage_names.end()) {
      add_expr_factors(net, net.storage->cache_mb, out);
      for (const auto& f : net.storage->trace_factors) add_unique(out, f);
      for (const auto& f : net.storage->disk_factors) add_unique(out, f);
      continue;
    }
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

// One StorageModel per [model.storage], trace, disk and process: replaying a trace is the costly part.
const StorageModel& storage_model(const StorageSpec& spec, const std::string& trace_path,
                                  const std::string& disk_path) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<StorageModel>> models;
  const std::string key = fmt::format("{}|{}|{}|{}|{}|{}", trace_path, spec.block_bytes, spec.policy,
                                      disk_path, spec.warm_fraction, spec.classifier);
  std::lock_guard lock(mu);
  auto& slot = models[key];
  if (!slot) {
    try {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(trace_path, ec))
        throw InputError(
            fmt::format("trace: no such file {} (record one with [workload] trace = true, then "
                        "`workbench trace --trial N --out FILE`)",
                        trace_path));
      std::optional<DiskParams> disk;
      if (!disk_path.empty()) disk = read_disk_params(disk_path).params;
      std::optional<IoClassifier> classifier;
      if (!spec.classifier.empty()) classifier = read_classifier(spec.classifier);
      slot = std::make_unique<StorageModel>(read_io_trace_file(trace_path), spec.block_bytes, spec.policy,
                                            disk, spec.warm_fraction, classifier ? &*classifier : nullptr);
    } catch (const InputError& e) {
      models.erase(key);
      throw InputError(fmt::format("{}: {}", spec.where, e.what()));
    }
  }
  return *slot;
}

// `path` with each "{factor}" replaced by the sample's level.
std::string expand_path(std::string path, const std::vector<std::string>& factors, const Sample& sample,
                        const std::string& where) {
  for (const auto& f : factors) {
    const std::string placeholder = "{" + f + "}";
    if (!sample.has(f)) throw InputError(fmt::format("{}: the sample has no level of {}", where, f));
    for (auto at = path.find(placeholder); at != std::string::npos; at = path.find(placeholder))
      path.replace(at, placeholder.size(), sample.value(f));
  }
  return path;
}

}  // namespace

std::optional<StorageAnswer> storage_answer(const QueueNetwork& net, const Sample& sample) {
  if (!net.storage) return std::nullopt;
  const StorageSpec& spec = *net.storage;
  double mb = 0;
  try {
    mb = spec.cache_mb.eval(net.with_attributes(sample));
  } catch (const Error& e) {
    throw InputError(fmt::format("{}.cache_mb: '{}' for {}: {}", spec.where, spec.cache_mb.text(),
                                 sample.key(), e.what()));
  }
  const StorageModel& model =
      storage_model(spec, expand_path(spec.trace, spec.trace_factors, sample, spec.where + ".trace"),
                    expand_path(spec.disk, spec.disk_factors, sample, spec.where + ".disk"));
  try {
    return model.at(mb);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}.cache_mb: {}", spec.where, e.what()));
  }
}

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
  Sample s = sample;
  m.storage = storage_answer(net, sample);
  if (m.storage) {
    // A center nobody visits is not allowed; a cache that holds everything leaves a trickle.
    s.set("cache_hit_rate", format_number(m.storage->read_hit_rate));
    s.set("disk_visits", format_number(std::max(m.storage->disk_visits, 1e-9)));
    if (m.storage->disk_ms) s.set("disk_ms", format_number(std::max(*m.storage->disk_ms, 1e-9)));
  }
  m.sample = net.with_attributes(s);
  m.network = net.resolved(s);
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
  e.storage = m.storage;
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
