// `workbench model show` and `workbench model calibrate`: the expectation model of a testbed, its
// configured and calibrated demands, and calibration from refserver's per-stage times or by the
// service demand law D = U/X from its disks' utilization [000 §4.1.1].
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/trial_limits.hpp"
#include "experiment/model_fit.hpp"
#include "experiment/model_view.hpp"

namespace wb {

namespace {

struct ModelOptions {
  std::string set;
  CalibrationRequest calibration;
  std::string method = "stages";  // model calibrate: "stages", "utilization" or "fit"
  ModelFitRequest fit;
  bool dry_run = false;
};

nlohmann::json calibration_json(const Config& config, const CalibratedDemand& c) {
  return {{"center", c.center},
          {"demand_ms", c.demand_ms},
          {"visits", c.visits ? nlohmann::json(*c.visits) : nlohmann::json()},
          {"sample", sample_json(config, c.sample)},
          {"source", c.source},
          {"measured_at", c.measured_at}};
}

nlohmann::json rate_json(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

// DESIGN.md "Command contracts": model show --json.
nlohmann::json model_json(const Config& config, const ModelView& m) {
  nlohmann::json centers = nlohmann::json::array();
  for (const ModelCenterView& c : m.centers) {
    nlohmann::json j{{"name", c.name},
                     {"kind", c.pool ? "pool" : "queue"},
                     {"servers_expr", c.servers_expr},
                     {"servers", c.servers}};
    if (!c.pool) {
      j["discipline"] = c.discipline;
      j["within"] = c.within;
      j["visits"] = c.visits;
      j["configured_demand_ms"] = c.configured_demand_ms;
      j["calibrated"] = c.calibrated ? calibration_json(config, *c.calibrated) : nlohmann::json();
      j["demand_per_request_ms"] = c.demand_per_request_ms;
    }
    centers.push_back(j);
  }
  nlohmann::json attributes = nlohmann::json::array();
  for (const auto& a : config.model()->attributes)
    attributes.push_back({{"factor", a.factor}, {"name", a.name}, {"levels", a.by_level}});
  nlohmann::json all = nlohmann::json::array();
  for (const auto& c : m.calibrations) all.push_back(calibration_json(config, c));
  nlohmann::json j{{"testbed", config.name()},
                   {"sample", sample_json(config, m.sample)},
                   {"attributes", attributes},
                   {"centers", centers},
                   {"calibrations", all},
                   {"peak_rate", rate_json(m.calibrated.peak_rate)},
                   {"peak_rate_configured", rate_json(m.configured.peak_rate)},
                   {"saturation_rate", rate_json(m.calibrated.saturation_rate)},
                   {"bottleneck", m.calibrated.at.bottleneck}};
  j["zcart"] = m.tree ? nlohmann::json{{"nodes", m.tree->node_count()},
                                       {"depth", m.tree->depth()},
                                       {"observations", m.tree->observation_count()},
                                       {"describe", m.tree->describe()},
                                       {"factor_splits", factor_splits_json(m.factor_splits)},
                                       {"factor_leaves", factor_leaves_json(m.factor_leaves)}}
                      : nlohmann::json();
  j["learned"] = m.learned ? learned_model_report(*m.learned) : nlohmann::json();
  if (m.learned)
    j["learned"]["peak_rate_recalibrated"] =
        m.recalibrated_peak ? rate_json(*m.recalibrated_peak) : nlohmann::json();
  return j;
}

void print_model(const Config& config, const ModelView& m) {
  fmt::print("expectation model of {} ({}) at {}\n", config.name(), config.file(), m.sample.key());
  for (const auto& a : config.model()->attributes) {
    std::string levels;
    for (const auto& [level, v] : a.by_level)
      levels += fmt::format("{}{}={:g}", levels.empty() ? "" : ", ", level, v);
    fmt::print("  attribute {{{}}} by {}: {}\n", a.name, a.factor, levels);
  }
  fmt::print("  {:<8} {:<6} {:>8} {:>7} {:>14} {:>14} {:>13}  {}\n", "center", "kind", "servers", "visits",
             "configured_ms", "calibrated_ms", "per_request", "calibrated at");
  for (const ModelCenterView& c : m.centers) {
    if (c.pool) {
      fmt::print("  {:<8} {:<6} {:>8}\n", c.name, "pool", c.servers);
      continue;
    }
    const auto& cal = c.calibrated;
    fmt::print("  {:<8} {:<6} {:>8} {:>7.3f} {:>14.3f} {:>14} {:>13.3f}  {}\n", c.name, c.discipline,
               c.servers, c.visits, c.configured_demand_ms,
               cal ? fmt::format("{:.3f}", cal->demand_ms) : std::string("-"), c.demand_per_request_ms,
               cal ? fmt::format("{} ({})", cal->measured_at, cal->source) : std::string(""));
  }
  fmt::print(
      "λ* expected: {:.1f}/s with calibrations, {:.1f}/s as configured; λ_max {:.1f}/s; bottleneck {}\n",
      m.calibrated.peak_rate, m.configured.peak_rate, m.calibrated.saturation_rate,
      m.calibrated.at.bottleneck);
  if (m.tree) {
    fmt::print("Z-CART correction of λ* ({} observations, {} nodes):\n{}", m.tree->observation_count(),
               m.tree->node_count(), m.tree->describe());
    if (!m.factor_splits.empty()) fmt::print("its splits on derived attributes, over the factors' levels:\n");
    for (const FactorSplit& f : m.factor_splits) {
      fmt::print("  {}: {} of {} level combinations go left", f.split, f.to_left, f.samples);
      if (!f.left.empty()) fmt::print("; left: {}", f.left);
      if (!f.right.empty()) fmt::print("; right: {}", f.right);
      if (f.left.empty() && f.right.empty() && f.to_left > 0 && f.to_left < f.samples)
        fmt::print(" (neither side is a box over the factors)");
      if (!f.surrogate.empty())
        fmt::print("; nearest one-factor split: left if {} (agrees at {} of {})", f.surrogate, f.agree,
                   f.samples);
      fmt::print("\n");
    }
    if (!m.factor_leaves.empty()) fmt::print("its leaves, over the factors' levels:\n");
    for (const FactorLeaf& l : m.factor_leaves) {
      const std::string what = l.cap > 0             ? fmt::format("capped at {:.1f}/s", l.cap)
                               : l.correction == 1.0 ? std::string("the expectation")
                                                     : fmt::format("x {:.3g}", l.correction);
      fmt::print("  {}: {} at {} level combinations{}\n", l.rule, what, l.samples,
                 l.box.empty() ? "" : ": where " + l.box);
    }
  } else {
    fmt::print("no Z-CART tree stored yet (`workbench agent` keeps one once probes have run)\n");
  }
  if (m.learned) {
    if (m.learned->recalibration && m.recalibrated_peak) {
      fmt::print("recalibrated: {}; λ* here {:.1f}/s\n", m.learned->recalibration->describe(),
                 *m.recalibrated_peak);
    }
    fmt::print("whatif's learned λ*: {}\n", m.learned->why);
  }
}

int run_show(const CommonOptions& common, const ModelOptions& o) {
  Config config = Config::load(common.config);
  ModelView m = show_model(config, common.store_or(config.store_path()), o.set);
  if (common.json)
    std::cout << model_json(config, m).dump(2) << "\n";
  else
    print_model(config, m);
  return 0;
}

std::string error_cell(const std::optional<double>& predicted, double measured) {
  if (!predicted) return "-";
  return fmt::format("{:.1f} ({:+.1f}%)", *predicted, 100 * (*predicted / measured - 1));
}

nlohmann::json fit_json(const Config& config, const ModelFitResult& f) {
  nlohmann::json centers = nlohmann::json::array();
  for (const auto& c : f.fit.centers)
    centers.push_back({{"center", c.center}, {"multiplier", c.multiplier}, {"low", c.low}, {"high", c.high}});
  nlohmann::json stored = nlohmann::json::array();
  for (const auto& c : f.stored) stored.push_back(calibration_json(config, c));
  nlohmann::json rows = nlohmann::json::array();
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  for (const auto& e : f.extrapolation) {
    rows.push_back({{"search_id", e.search_id},
                    {"sample", sample_json(config, e.sample)},
                    {"measured_peak", e.measured_peak},
                    {"points", e.points},
                    {"highest_rate", e.highest_rate},
                    {"queueing", opt(e.queueing)},
                    {"linear", opt(e.linear)},
                    {"quadratic", opt(e.quadratic)},
                    {"power_law", opt(e.power_law)}});
  }
  return {{"method", "fit"},        {"points", f.fit.points},         {"samples", f.samples.size()},
          {"sigma", f.fit.sigma},   {"confidence", f.fit.confidence}, {"centers", centers},
          {"calibrations", stored}, {"extrapolation", rows}};
}

void print_fit(const ModelFitResult& f, const ModelFitRequest& r, bool stored) {
  fmt::print("fitted the model to {} measured loads at {} sample(s): log response spread σ = {:.3f}\n",
             f.fit.points, f.samples.size(), f.fit.sigma);
  fmt::print("  {:<10} {:>10}  {:>22}\n", "center", "multiplier",
             fmt::format("{:.0f}% interval", f.fit.confidence * 100));
  for (const auto& c : f.fit.centers)
    fmt::print("  {:<10} {:>10}  {:>22}\n", c.center, fmt::format("x{:.3f}", c.multiplier),
               fmt::format("[x{:.3f}, x{:.3f}]", c.low, c.high));
  fmt::print("{} demand(s) per visit:\n", stored ? "stored" : "would store (--dry-run)");
  for (const auto& c : f.stored)
    fmt::print("  {:<10} {:.4f} ms at {}\n", c.center, c.demand_ms, c.sample.key());
  if (f.extrapolation.empty()) return;
  fmt::print("\nλ* from the trials at or below {:.0f}% of each measured λ*, against the measured λ*:\n",
             r.low_fraction * 100);
  fmt::print("  {:>6} {:<28} {:>9} {:>6}  {:>17} {:>17} {:>17} {:>17}\n", "search", "sample", "measured",
             "trials", "queueing", "linear", "quadratic", "power law");
  for (const auto& e : f.extrapolation) {
    fmt::print("  {:>6} {:<28} {:>9.1f} {:>6}  {:>17} {:>17} {:>17} {:>17}\n", e.search_id, e.sample.key(),
               e.measured_peak, e.points, error_cell(e.queueing, e.measured_peak),
               error_cell(e.linear, e.measured_peak), error_cell(e.quadratic, e.measured_peak),
               error_cell(e.power_law, e.measured_peak));
  }
}

int run_fit(const CommonOptions& common, ModelOptions& o) {
  o.fit.set = o.set;
  o.fit.store = !o.dry_run;
  Config config = Config::load(common.config);
  ModelFitResult f = fit_model_from_store(config, common.store_or(config.store_path()), o.fit);
  if (common.json)
    std::cout << fit_json(config, f).dump(2) << "\n";
  else
    print_fit(f, o.fit, o.fit.store);
  return 0;
}

int run_calibrate(const CommonOptions& common, ModelOptions& o) {
  if (o.method == "fit") return run_fit(common, o);
  o.calibration.set = o.set;
  o.calibration.method = parse_calibration_method(o.method);
  Config config = Config::load(common.config);
  CalibrationResult c =
      calibrate_model(config, common.store_or(config.store_path()), o.calibration, std::cerr);
  if (common.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& m : c.measured) out.push_back(calibration_json(config, m));
    std::cout << nlohmann::json{{"sample", sample_json(config, c.sample)},
                                {"method", method_name(o.calibration.method)},
                                {"rate", c.rate},
                                {"mean_ms", c.mean_ms},
                                {"calibrations", out}}
                     .dump(2)
              << "\n";
    return 0;
  }
  fmt::print("calibrated {} on {} at {:.1f}/s (mean response {:.2f} ms):\n", c.sample.key(), config.name(),
             c.rate, c.mean_ms);
  for (const auto& m : c.measured) {
    fmt::print("  {:<6} {:.3f} ms per visit, {:.3f} visits per request  ({})\n", m.center, m.demand_ms,
               m.visits.value_or(1.0), m.source);
  }
  return 0;
}

}  // namespace

Command model_command() {
  return Command{
      "model",
      "The expectation model: `model show` prints its centers with configured and calibrated demands; "
      "`model calibrate` measures demands on the real testbed (refserver's per-stage times, or the "
      "service demand law D = U/X from its disks' utilization), or fits them to the measured trials "
      "of any SUT (--method fit).",
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
        cal->add_option("--rate,-r", o->calibration.rate,
                        "offered rate, requests/s (default: 25% of the model's λ_max)")
            ->check(cli::finite_number(0, kMaxRate, true));
        cal->add_option(
               "--runlength", o->calibration.runlength_s,
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
                        "utilization for them) and keep their earlier calibration or configured demand. fit: "
                        "runs nothing; for a SUT that reports no stage times, infers every center's demand "
                        "from the trials already in the store (each trial's mean response at its rate; "
                        "--set limits it to one sample), with intervals, stores them, and prints how well "
                        "each search's low-load trials predict its λ* against linear, quadratic and "
                        "power-law regressions (docs/decisions.md#black-box-calibration)")
            ->check(CLI::IsMember({"stages", "utilization", "fit"}));
        cal->add_option("--low-load", o->fit.low_fraction,
                        "--method fit: the extrapolation table fits each search's trials at or below this "
                        "fraction of its measured λ* (default 0.75)")
            ->check(cli::finite_number(0, 1, true));
        cal->add_flag("--dry-run", o->dry_run, "--method fit: print the fit and the table, store nothing");
        cal->callback([which] { *which = "calibrate"; });
        return [&common, o, which] {
          return *which == "show" ? run_show(common, *o) : run_calibrate(common, *o);
        };
      }};
}

}  // namespace wb
