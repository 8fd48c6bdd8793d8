// `workbench model show` and `workbench model calibrate`: the expectation model of a testbed, its
// configured and calibrated demands, and calibration from refserver's per-stage times or by the
// service demand law D = U/X from its disks' utilization [000 §4.1.1].
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "core/trial_limits.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/expectation_zcart.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/refserver_stats.hpp"
#include "experiment/testbed.hpp"
#include "harness/real_trial_runner.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

struct ModelOptions {
  std::string set;
  std::optional<double> rate;
  std::optional<double> runlength_s;
  std::string method = "stages";  // model calibrate: "stages" or "utilization"
};

const QueueNetwork& require_model(const Config& config) {
  if (!config.model()) throw InputError(fmt::format("{}: no [model] section", config.file()));
  return *config.model();
}

nlohmann::json calibration_json(const Config& config, const CalibratedDemand& c) {
  return {{"center", c.center},
          {"demand_ms", c.demand_ms},
          {"visits", c.visits ? nlohmann::json(*c.visits) : nlohmann::json()},
          {"sample", sample_json(config, c.sample)},
          {"source", c.source},
          {"measured_at", c.measured_at}};
}

int run_show(const CommonOptions& common, const ModelOptions& o) {
  Config config = Config::load(common.config);
  Sample sample = config.sample(o.set);
  const QueueNetwork& net = require_model(config);
  store::Store store(common.store_or(config.store_path()));
  std::vector<CalibratedDemand> calibrations = load_calibrations(store, config);
  EffectiveModel configured = effective_model(config, sample, {});
  PeakExpectation with_cal = expect_peak(config, sample, calibrations);
  PeakExpectation without_cal = expect_peak(config, sample, {});

  nlohmann::json centers = nlohmann::json::array();
  for (std::size_t i = 0; i < net.centers.size(); ++i) {
    const ServiceCenter& c = net.centers[i];
    const ServiceCenter& r = configured.network.centers[i];
    nlohmann::json j{{"name", c.name},
                     {"kind", c.pool ? "pool" : "queue"},
                     {"servers_expr",
                      c.servers.text().empty() ? format_number(c.servers.eval(Sample())) : c.servers.text()},
                     {"servers", r.servers.eval(configured.sample)}};
    if (!c.pool) {
      const CalibratedDemand* cal = applicable_calibration(net, c, sample, calibrations);
      j["discipline"] = to_string(c.discipline);
      j["within"] = c.within;
      j["visits"] = r.visits;
      j["configured_demand_ms"] = r.demand_ms.eval(configured.sample);
      j["calibrated"] = cal ? calibration_json(config, *cal) : nlohmann::json();
      double per_visit = cal ? cal->demand_ms : r.demand_ms.eval(configured.sample);
      double visits = cal && cal->visits ? *cal->visits : r.visits;
      j["demand_per_request_ms"] = per_visit * visits;
    }
    centers.push_back(j);
  }
  nlohmann::json attributes = nlohmann::json::array();
  for (const auto& a : net.attributes) {
    attributes.push_back({{"factor", a.factor}, {"name", a.name}, {"levels", a.by_level}});
  }
  auto rate_json = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };

  if (common.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& c : calibrations) all.push_back(calibration_json(config, c));
    nlohmann::json j{{"testbed", config.name()},
                     {"sample", sample_json(config, sample)},
                     {"attributes", attributes},
                     {"centers", centers},
                     {"calibrations", all},
                     {"peak_rate", rate_json(with_cal.peak_rate)},
                     {"peak_rate_configured", rate_json(without_cal.peak_rate)},
                     {"saturation_rate", rate_json(with_cal.saturation_rate)},
                     {"bottleneck", with_cal.at.bottleneck}};
    std::optional<ZCart> tree = load_zcart(store, config);
    j["zcart"] = tree ? nlohmann::json{{"nodes", tree->node_count()},
                                       {"depth", tree->depth()},
                                       {"observations", tree->observation_count()},
                                       {"describe", tree->describe()}}
                      : nlohmann::json();
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  fmt::print("expectation model of {} ({}) at {}\n", config.name(), config.file(), sample.key());
  for (const auto& a : net.attributes) {
    std::string levels;
    for (const auto& [level, v] : a.by_level)
      levels += fmt::format("{}{}={:g}", levels.empty() ? "" : ", ", level, v);
    fmt::print("  attribute {{{}}} by {}: {}\n", a.name, a.factor, levels);
  }
  fmt::print("  {:<8} {:<6} {:>8} {:>7} {:>14} {:>14} {:>13}  {}\n", "center", "kind", "servers", "visits",
             "configured_ms", "calibrated_ms", "per_request", "calibrated at");
  for (const auto& j : centers) {
    if (j["kind"] == "pool") {
      fmt::print("  {:<8} {:<6} {:>8}\n", j["name"].get<std::string>(), "pool", j["servers"].get<double>());
      continue;
    }
    const auto& cal = j["calibrated"];
    fmt::print("  {:<8} {:<6} {:>8} {:>7.3f} {:>14.3f} {:>14} {:>13.3f}  {}\n", j["name"].get<std::string>(),
               j["discipline"].get<std::string>(), j["servers"].get<double>(), j["visits"].get<double>(),
               j["configured_demand_ms"].get<double>(),
               cal.is_null() ? std::string("-") : fmt::format("{:.3f}", cal["demand_ms"].get<double>()),
               j["demand_per_request_ms"].get<double>(),
               cal.is_null() ? std::string("")
                             : fmt::format("{} ({})", cal["measured_at"].get<std::string>(),
                                           cal["source"].get<std::string>()));
  }
  fmt::print(
      "λ* expected: {:.1f}/s with calibrations, {:.1f}/s as configured; λ_max {:.1f}/s; bottleneck {}\n",
      with_cal.peak_rate, without_cal.peak_rate, with_cal.saturation_rate, with_cal.at.bottleneck);
  // The Z-CART tree the probe agent keeps for this testbed [000 §3.3.1].
  if (std::optional<ZCart> tree = load_zcart(store, config)) {
    fmt::print("Z-CART correction of λ* ({} observations, {} nodes):\n{}", tree->observation_count(),
               tree->node_count(), tree->describe());
  } else {
    fmt::print("no Z-CART tree stored yet (`workbench agent` keeps one once probes have run)\n");
  }
  return 0;
}

int run_calibrate(const CommonOptions& common, const ModelOptions& o) {
  Config config = Config::load(common.config);
  Sample sample = config.sample(o.set);
  const QueueNetwork& net = require_model(config);
  std::optional<TestbedConfig> real = validate_testbed(config);
  if (!real)
    throw InputError(
        fmt::format("{}: `model calibrate` measures a real refserver testbed ([sut])", config.file()));
  // Low load: a quarter of what the configured model says saturates the sample, so queueing
  // barely inflates the stage times.
  double rate = o.rate ? *o.rate : 0.25 * expect_peak(config, sample, {}).saturation_rate;
  if (!(rate > 0) || !std::isfinite(rate)) throw InputError("--rate must be a positive rate");
  // Long enough for ~2000 requests (a mean service time of exponential draws to ±2.2% at one
  // standard error), but at most a minute and at least the testbed's own runlength.
  double runlength =
      o.runlength_s ? *o.runlength_s : std::max(config.peak().runlength_s, std::min(60.0, 2000.0 / rate));
  if (!(runlength > 0)) throw InputError("--runlength must be positive");

  // No warm-up: the stage counters, reset as the trial starts, then cover exactly the requests the
  // generator measured, so "net" compares the same requests (docs/decisions.md#calibration-no-warmup).
  real->workload.warmup_s = 0;
  store::Store store(common.store_or(config.store_path()));
  std::vector<CalibratedDemand> measured;
  TrialResult trial;
  {
    std::unique_ptr<TrialRunner> testbed =
        make_trial_runner(config, real, default_seed(config), false, store.path());
    InterruptibleRunner runner(*testbed);
    std::cerr << fmt::format("calibrating {} at {:.1f}/s for {:g} s\n", sample.key(), rate, runlength);
    trial = runner.run(sample, rate, runlength, 0);
    // The SUT keeps running until the runner goes: its counters cover this trial (and warm-up).
    nlohmann::json stats =
        fetch_refserver_stats(real->sut.address, real->sut.port, false, std::chrono::seconds(5));
    measured = o.method == "utilization" ? demands_from_utilization(stats, net, sample)
                                         : demands_from_refserver_stats(stats, net, sample, trial.mean_ms);
  }
  if (measured.empty() && o.method == "utilization")
    throw Error(
        "--method utilization: refserver observes the utilization of its disks only, and no [model] center "
        "named disk (outside a pool) was busy: nothing to calibrate");
  if (measured.empty())
    throw Error("no [model] center is named like a refserver stage (cpu, disk): nothing to calibrate");
  for (const auto& m : measured) {
    store.add_calibration(
        store::Store::CalibrationRow{config.name(), m.center, m.sample, m.demand_ms, m.visits, m.source, ""});
  }
  if (common.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& m : measured) out.push_back(calibration_json(config, m));
    std::cout << nlohmann::json{{"sample", sample_json(config, sample)},
                                {"method", o.method},
                                {"rate", rate},
                                {"mean_ms", trial.mean_ms},
                                {"calibrations", out}}
                     .dump(2)
              << "\n";
  } else {
    fmt::print("calibrated {} on {} at {:.1f}/s (mean response {:.2f} ms):\n", sample.key(), config.name(),
               rate, trial.mean_ms);
    for (const auto& m : measured) {
      fmt::print("  {:<6} {:.3f} ms per visit, {:.3f} visits per request  ({})\n", m.center, m.demand_ms,
                 m.visits.value_or(1.0), m.source);
    }
  }
  return 0;
}

}  // namespace

Command model_command() {
  return Command{
      "model",
      "The expectation model: `model show` prints its centers with configured and calibrated demands; "
      "`model calibrate` measures demands on the real testbed (refserver's per-stage times, or the "
      "service demand law D = U/X from its disks' utilization).",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<ModelOptions>();
        auto which = std::make_shared<std::string>();
        app.require_subcommand(1);
        CLI::App* show = app.add_subcommand(
            "show",
            "Centers, servers, visits and demands per visit: configured vs calibrated (the latest "
            "calibration "
            "that applies to the sample: measured where the sample agrees on every factor the demand depends "
            "on), and the λ* both give.");
        add_common_options(*show, common);
        show->add_option("--set,-s", o->set, "factor levels of the sample (others: their default)");
        show->callback([which] { *which = "show"; });
        CLI::App* cal = app.add_subcommand(
            "calibrate",
            "Run one low-load trial of the sample on the real testbed, read refserver's per-stage mean "
            "times (stats request) and store them as the calibrated demands of the centers named cpu "
            "and disk; a delay center named net gets what the generator saw beyond refserver's residence "
            "time (loopback, network threads). With --method utilization, the disk's demand comes from the "
            "service demand law D = U/X instead.");
        add_common_options(*cal, common);
        cal->add_option("--set,-s", o->set, "factor levels of the sample (others: their default)");
        cal->add_option("--rate,-r", o->rate, "offered rate, requests/s (default: 25% of the model's λ_max)")
            ->check(cli::finite_number(0, kMaxRate, true));
        cal->add_option(
               "--runlength", o->runlength_s,
               "trial length, s (default: long enough for ~2000 requests, at most 60 s, at least [peak] "
               "runlength_s)")
            ->check(cli::finite_number(0, kMaxSeconds, true));
        cal->add_option("--method", o->method,
                        "stages (default): refserver's per-stage mean times, as above. utilization: the "
                        "service demand law D = U/X where refserver observes a utilization, its disks: U = "
                        "their busy time summed over the trial's stats interval divided by its length, X = "
                        "the requests refserver completed in that interval, D = U/X per request; the disk "
                        "visits per request V = disk operations / requests (forced flow law), stored as "
                        "D/V per visit. cpu and net are not calibrated this way (refserver reports no "
                        "utilization for them) and keep their earlier calibration or configured demand")
            ->check(CLI::IsMember({"stages", "utilization"}));
        cal->callback([which] { *which = "calibrate"; });
        return [&common, o, which] {
          return *which == "show" ? run_show(common, *o) : run_calibrate(common, *o);
        };
      }};
}

}  // namespace wb
