#include "experiment/surface_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/leases.hpp"
#include "experiment/peak_search.hpp"
#include "experiment/surface_slots.hpp"
#include "experiment/testbed.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string name = text.substr(start, comma - start);
    if (name.empty()) throw InputError(fmt::format("--factors: empty factor name in '{}'", text));
    out.push_back(name);
    start = comma + 1;
  }
  return out;
}

nlohmann::json peak_options_json(const PeakConfig& p) {
  nlohmann::json j{{"r_sat_ms", p.r_sat_ms},
                   {"width", p.region.width},
                   {"start_rate", p.start_rate},
                   {"runlength_s", p.runlength_s},
                   {"min_trials", p.min_trials},
                   {"max_trials", p.max_trials},
                   {"max_loads", p.max_loads},
                   {"budget_s", p.budget_s},
                   {"sequential", p.sequential == Sequential::kNone ? "none" : "bonferroni"}};
  if (auto q = metric_quantile(p.region.metric)) {
    j["percentile"] = *q;
    j["l_sat_ms"] = p.region.sat_ms;
  }
  return j;
}

// Everything the user gave is checked before the store is opened: bad input changes nothing.
SurfacePlan plan_request(const Config& config, const MapSurfaceRequest& r, std::uint64_t seed) {
  SurfacePlanOptions po{split_names(r.factors), r.design, r.points, seed};
  po.select = r.model == "auto";
  try {
    if (!po.select) po.model = parse_model_kind(r.model);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--model: {} or auto", e.what()));
  }
  if (po.select && (r.response != "identity" || r.coding != "auto"))
    throw InputError(
        "--response and --coding choose one class: give them with --model (--model auto chooses all three)");
  try {
    po.response = parse_response_scale(r.response);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--response: {}", e.what()));
  }
  po.coding = r.coding;
  return plan_surface(config, config.sample(r.set), po);
}

// The parameters that make two runs the same surface (not --parallel or --budget: a surface may
// be continued with more slots or a larger budget).
nlohmann::json surface_params(const SurfacePlan& plan, const MapSurfaceRequest& r, const Sample& base,
                              const SearchOptions& search, const std::string& policy, std::uint64_t seed,
                              std::uint64_t design_seed) {
  std::vector<std::string> tour_keys;
  for (Eigen::Index row : plan.tour) tour_keys.push_back(plan.samples[static_cast<std::size_t>(row)].key());
  nlohmann::json params{{"factors", plan.factors},
                        {"design", plan.kind},
                        {"tour", tour_keys},
                        {"base", base.key()},
                        {"policy", policy},
                        {"seeding", r.seeding},
                        {"seed", seed},
                        {"target", {search.target.confidence, search.target.accuracy}},
                        {"peak", peak_options_json(search.peak)}};
  if (design_seed != seed) params["design_seed"] = design_seed;  // absent: older surfaces resume
  surface_model_params(plan, params);
  return params;
}

// Found or created in one transaction: two controllers started at once share one surface.
std::int64_t find_or_create_surface(store::Store& store, const Config& config, const SurfacePlan& plan,
                                    const nlohmann::json& params, std::ostream& log) {
  std::vector<Sample> tour;
  for (Eigen::Index row : plan.tour) tour.push_back(plan.samples[static_cast<std::size_t>(row)]);
  store::Transaction tx = store.transaction();
  std::int64_t surface_id = 0;
  if (auto found = store.find_surface(config.name(), params.dump())) {
    surface_id = found->id;
    if (found->status == store::SurfaceState::kDone)
      log << fmt::format("surface {} was finished: reporting it without measuring again\n", surface_id);
    else
      log << fmt::format("continuing surface {} ({} samples)\n", surface_id, found->points.size());
  } else {
    surface_id = store.create_surface(config.name(), params.dump(), params.dump(), tour);
    log << fmt::format("surface {}: {} samples of {}\n", surface_id, tour.size(), plan.candidates.rows());
  }
  tx.commit();
  return surface_id;
}

// The plan's tour as stored: sequential augmentation appends samples after the design's.
void sync_tour(SurfacePlan& plan, const store::SurfaceRecord& rec) {
  plan.tour.clear();
  for (const store::SurfacePoint& p : rec.points) {
    const std::string key = p.sample.key();
    for (std::size_t row = 0; row < plan.samples.size(); ++row) {
      if (plan.samples[row].key() == key) {
        plan.tour.push_back(static_cast<Eigen::Index>(row));
        break;
      }
    }
  }
}

// The `add` candidates that make the best design together with the tour, for the fitted class's
// terms and codings (the plan's terms when the class has fewer than three: a constant deviation
// says nothing about where to measure); empty when none is left or the design cannot grow.
std::vector<Eigen::Index> next_points(const SurfaceReport& r, int add, std::uint64_t seed) {
  const auto left = r.plan.candidates.rows() - static_cast<Eigen::Index>(r.plan.tour.size());
  if (!r.fit.surface || left <= 0) return {};
  add = static_cast<int>(std::min<Eigen::Index>(add, left));
  std::vector<Term> terms = r.fit.surface->fit().terms;
  if (terms.size() < 3) terms = r.plan.terms;
  try {
    Design d =
        augment(code_points(r.plan.candidates, r.fit.surface->codings()), terms, r.plan.tour, add, 40, seed);
    return {d.points.end() - add, d.points.end()};
  } catch (const InputError&) {
    return {};
  }
}

// Runs the surface's searches and fits it; with --target-error, then adds D-optimal samples and
// repeats until the cross-validated error meets it (or the budget, a missing λ* or the grid ends).
void measure_and_fit(SurfaceReport& report, store::Store& store, const SurfaceRunOptions& ro,
                     const Anchor& anchor, const MapSurfaceRequest& r, std::uint64_t design_seed,
                     std::ostream& log) {
  for (;;) {
    report.run = run_surface(report.surface_id, ro);
    sync_tour(report.plan, *store.surface(report.surface_id));
    report.status = report.run.budget_stopped ? store::SurfaceState::kBudget : store::SurfaceState::kDone;
    fit_report_surface(report, anchor);
    note_missing_points(report);
    if (r.target_error <= 0 || report.run.budget_stopped || report.incomplete() || !report.fit.surface) break;
    if (report.fit.cv_mape && *report.fit.cv_mape <= r.target_error) break;
    const std::vector<Eigen::Index> next = next_points(report, r.parallel, design_seed);
    if (next.empty()) break;
    for (Eigen::Index row : next) {
      const Sample& s = report.plan.samples[static_cast<std::size_t>(row)];
      store.add_surface_point(report.surface_id, s);
      ++report.added;
      log << fmt::format(
          "cross-validated error {} > target {:g}%: adding {} (D-optimal for the fitted class)\n",
          report.fit.cv_mape ? fmt::format("{:.2f}%", *report.fit.cv_mape) : std::string("unknown"),
          r.target_error, s.key());
    }
  }
}

}  // namespace

void note_missing_points(SurfaceReport& r) {
  r.missing.clear();
  std::vector<Eigen::Index> rows;
  for (std::size_t i = 0; i < r.plan.tour.size() && i < r.run.points.size(); ++i) {
    const PointOutcome& p = r.run.points[i];
    if (p.peak_rate)
      rows.push_back(r.plan.tour[i]);
    else if (p.status && *p.status != store::SearchState::kRunning &&
             *p.status != store::SearchState::kInterrupted)
      r.missing.push_back(static_cast<int>(i));
  }
  r.measured_figures = rows.empty() ? Design{} : evaluate_design(r.plan.coded, r.plan.terms, rows);
}

void fit_report_surface(SurfaceReport& r, const Anchor& anchor) {
  std::vector<Eigen::Index> rows;
  std::vector<double> y;
  for (std::size_t i = 0; i < r.plan.tour.size(); ++i) {
    const PointOutcome& p = r.run.points[i];
    if (p.peak_rate) {
      rows.push_back(r.plan.tour[i]);
      y.push_back(*p.peak_rate);
    }
  }
  Eigen::MatrixXd points(static_cast<Eigen::Index>(rows.size()), r.plan.candidates.cols());
  for (std::size_t i = 0; i < rows.size(); ++i)
    points.row(static_cast<Eigen::Index>(i)) = r.plan.candidates.row(rows[i]);
  Eigen::VectorXd yv = Eigen::Map<Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(y.size()));
  SurfaceSpec spec{r.plan.select, r.plan.model, r.plan.response, r.plan.coding};
  std::vector<const Factor*> factors;
  for (const auto& f : r.plan.factors) factors.push_back(r.config->factor(f));
  r.fit = fit_measured(factors, spec, points, yv, anchor);
}

SurfaceReport map_surface(const Config& config, const std::string& store_path, const MapSurfaceRequest& r,
                          std::ostream& log) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t seed = r.seed ? *r.seed : default_seed(config);
  SurfaceReport report;
  report.config = &config;
  const std::uint64_t design_seed = r.design_seed.value_or(seed);
  report.plan = plan_request(config, r, design_seed);
  SearchOptions search{config.peak(), r.target.empty() ? config.peak().target : Target::parse(r.target)};
  report.policy = r.policy.empty() ? config.peak().policy : r.policy;
  make_picker(report.policy, config.peak(), config.peak().start_rate);  // rejects an unknown policy now
  if (r.budget_h < 0) throw InputError("--budget: must be a positive number of hours");
  if (r.target_error < 0 || !std::isfinite(r.target_error))
    throw InputError("--target-error: must be a positive percentage (0: measure the design only)");
  std::optional<TestbedConfig> real = validate_testbed(config);
  const ProbeConfig probing = probe_config(config);
  std::vector<std::optional<TestbedConfig>> slots = testbed_slots(config, real, r.parallel);
  const nlohmann::json params =
      surface_params(report.plan, r, config.sample(r.set), search, report.policy, seed, design_seed);

  store::Store store(store_path);
  Leases leases(store_path, config.lease_timeout_s());
  leases.sweep(store, log);
  SurfaceRunOptions ro;
  if (r.seeding) ro.expected = expected_peak_for_seeding(config, store);
  report.surface_id = find_or_create_surface(store, config, report.plan, params, log);
  ro.store_path = store_path;
  ro.leases = &leases;
  ro.parallel = r.parallel;
  ro.seeding = r.seeding;
  ro.budget_s = r.budget_h * 3600;
  ro.search = search;
  ro.policy = report.policy;
  ro.start_rate = config.peak().start_rate;
  ro.search_record.testbed = config.name();
  ro.search_record.confidence = search.target.confidence;
  ro.search_record.accuracy = search.target.accuracy;
  ro.search_record.policy = report.policy;
  ro.search_record.seed = static_cast<std::int64_t>(seed);
  ro.search_record.options_json = params["peak"].dump();
  ro.make_runner = [&](int slot) {
    return make_trial_runner(config, slots[static_cast<std::size_t>(slot)], seed, r.verbose, store_path);
  };
  ro.log = [&log](const std::string& line) { log << line << "\n"; };
  ro.verbose = r.verbose;
  ro.factors = &config.factors();
  ro.config = &config;
  ro.probing = probing;
  const Anchor anchor = expectation_anchor(config, config.sample(r.set), report.plan.factors,
                                           load_calibrations(store, config), &store);
  report.seeding = r.seeding;
  report.parallel = r.parallel;
  measure_and_fit(report, store, ro, anchor, r, design_seed, log);
  store.finish_surface(report.surface_id, report.status);
  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace wb
