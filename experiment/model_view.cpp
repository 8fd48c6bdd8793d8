#include "experiment/model_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <utility>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/expectation_zcart.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/refserver_stats.hpp"
#include "experiment/testbed.hpp"
#include "harness/real_trial_runner.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

const QueueNetwork& require_model(const Config& config) {
  if (!config.model()) throw InputError(fmt::format("{}: no [model] section", config.file()));
  return *config.model();
}

ModelCenterView center_view(const QueueNetwork& net, std::size_t i, const EffectiveModel& configured,
                            const std::vector<CalibratedDemand>& calibrations, const Sample& sample) {
  const ServiceCenter& c = net.centers[i];
  const ServiceCenter& r = configured.network.centers[i];
  ModelCenterView v;
  v.name = c.name;
  v.pool = c.pool;
  v.servers_expr = c.servers.text().empty() ? format_number(c.servers.eval(Sample())) : c.servers.text();
  v.servers = r.servers.eval(configured.sample);
  if (c.pool) return v;
  const CalibratedDemand* cal = applicable_calibration(net, c, sample, calibrations);
  v.discipline = to_string(c.discipline);
  v.within = c.within;
  v.visits = r.visits;
  v.configured_demand_ms = r.demand_ms.eval(configured.sample);
  if (cal != nullptr) v.calibrated = *cal;
  const double per_visit = cal ? cal->demand_ms : v.configured_demand_ms;
  v.demand_per_request_ms = per_visit * (cal && cal->visits ? *cal->visits : r.visits);
  return v;
}

}  // namespace

ModelView show_model(const Config& config, const std::string& store_path, const std::string& set) {
  ModelView m;
  m.sample = config.sample(set);
  const QueueNetwork& net = require_model(config);
  store::Store store(store_path);
  m.calibrations = load_calibrations(store, config);
  const EffectiveModel configured = effective_model(config, m.sample, {});
  for (std::size_t i = 0; i < net.centers.size(); ++i)
    m.centers.push_back(center_view(net, i, configured, m.calibrations, m.sample));
  m.calibrated = expect_peak(config, m.sample, m.calibrations);
  m.configured = expect_peak(config, m.sample, {});
  m.tree = load_zcart(store, config);
  if (m.tree) {
    const ZCartAttributes attributes(config);
    // A tree stored under another schema (the config changed since) has no reading over the factors.
    if (attributes.schema().size() == m.tree->schema().size() &&
        std::equal(attributes.schema().begin(), attributes.schema().end(), m.tree->schema().begin(),
                   [](const Attribute& a, const Attribute& b) { return a.name == b.name; })) {
      FactorReading reading = read_over_factors(*m.tree, attributes);
      m.factor_splits = std::move(reading.splits);
      m.factor_leaves = std::move(reading.leaves);
    }
  }
  const std::vector<MeasuredVsExpected> rows = measured_vs_expected(store, config.name());
  // Learning may take seconds with large pools: Ctrl-C is looked at between its solves.
  LearnedModel learned =
      current_learned_model(store, config, m.calibrations, rows,
                            persisted_zcart_options(config, probe_config(config)), check_interrupt);
  if (learned.samples > 0) {
    if (learned.recalibration)
      m.recalibrated_peak = recalibrated_peak(config, m.calibrations, *learned.recalibration, m.sample);
    m.learned = std::move(learned);
  }
  return m;
}

CalibrationMethod parse_calibration_method(std::string_view text) {
  if (text == "stages") return CalibrationMethod::kStages;
  if (text == "utilization") return CalibrationMethod::kUtilization;
  throw InputError(fmt::format("--method {}: must be stages or utilization", text));
}

std::string_view method_name(CalibrationMethod method) {
  return method == CalibrationMethod::kUtilization ? "utilization" : "stages";
}

CalibrationResult calibrate_model(const Config& config, const std::string& store_path,
                                  const CalibrationRequest& r, std::ostream& log) {
  CalibrationResult out;
  out.sample = config.sample(r.set);
  const QueueNetwork& net = require_model(config);
  std::optional<TestbedConfig> real = validate_testbed(config);
  if (!real)
    throw InputError(
        fmt::format("{}: `model calibrate` measures a real refserver testbed ([sut])", config.file()));
  // Low load: a quarter of what the configured model says saturates the sample, so queueing
  // barely inflates the stage times.
  out.rate = r.rate ? *r.rate : 0.25 * expect_peak(config, out.sample, {}).saturation_rate;
  if (!(out.rate > 0) || !std::isfinite(out.rate)) throw InputError("--rate must be a positive rate");
  // Long enough for ~2000 requests (a mean service time of exponential draws to ±2.2% at one
  // standard error), but at most a minute and at least the testbed's own runlength.
  out.runlength_s =
      r.runlength_s ? *r.runlength_s : std::max(config.peak().runlength_s, std::min(60.0, 2000.0 / out.rate));
  if (!(out.runlength_s > 0)) throw InputError("--runlength must be positive");

  // No warm-up: the stage counters, reset as the trial starts, then cover exactly the requests the
  // generator measured, so "net" compares the same requests (docs/decisions.md#calibration-no-warmup).
  real->workload.warmup_s = 0;
  store::Store store(store_path);
  {
    std::unique_ptr<TrialRunner> testbed =
        make_trial_runner(config, real, default_seed(config), false, store.path());
    InterruptibleRunner runner(*testbed);
    log << fmt::format("calibrating {} at {:.1f}/s for {:g} s\n", out.sample.key(), out.rate,
                       out.runlength_s);
    out.mean_ms = runner.run(out.sample, out.rate, out.runlength_s, 0).mean_ms;
    // The SUT keeps running until the runner goes: its counters cover this trial (and warm-up).
    nlohmann::json stats =
        fetch_refserver_stats(real->sut.address, real->sut.port, false, std::chrono::seconds(5));
    out.measured = r.method == CalibrationMethod::kUtilization
                       ? demands_from_utilization(stats, net, out.sample)
                       : demands_from_refserver_stats(stats, net, out.sample, out.mean_ms);
  }
  if (out.measured.empty() && r.method == CalibrationMethod::kUtilization)
    throw Error(
        "--method utilization: refserver observes the utilization of its disks only, and no [model] center "
        "named disk (outside a pool) was busy: nothing to calibrate");
  if (out.measured.empty())
    throw Error("no [model] center is named like a refserver stage (cpu, disk): nothing to calibrate");
  for (const auto& m : out.measured) {
    store.add_calibration(
        store::Store::CalibrationRow{config.name(), m.center, m.sample, m.demand_ms, m.visits, m.source, ""});
  }
  return out;
}

}  // namespace wb
