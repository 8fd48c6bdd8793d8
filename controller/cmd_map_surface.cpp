// `workbench map-surface`: [003 Alg. 1] with a D-optimal response surface [003 §4, §5.3.2]: chooses
// and tours the samples, searches each (on K slots at once), stores all as it happens, fits the surface
// and reports measured and predicted λ*. Running the same command again continues an unfinished one.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/surface_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "experiment/leases.hpp"
#include "experiment/peak_search.hpp"
#include "experiment/surface_plan.hpp"
#include "experiment/surface_runner.hpp"
#include "experiment/surface_slots.hpp"
#include "experiment/testbed.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

struct MapSurfaceOptions {
  std::string factors;
  std::string set;
  std::string design = "dopt";
  int points = 0;
  std::string policy;
  std::string target;
  bool seeding = false;
  int parallel = 1;
  double budget_h = 0;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string model = "quadratic";
  std::string response = "identity";
  std::string coding = "auto";
  bool verbose = false;
};

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

int run_map_surface(const CommonOptions& common, const MapSurfaceOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  // Everything the user gave is validated before the store is opened: bad input changes nothing.
  Config config = Config::load(common.config);
  Sample base = config.sample(o.set);
  std::uint64_t seed = o.seed_given ? o.seed : default_seed(config);
  SurfacePlanOptions po{split_names(o.factors), o.design, o.points, seed};
  try {
    po.model = parse_model_kind(o.model);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--model: {}", e.what()));
  }
  try {
    po.response = parse_response_scale(o.response);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--response: {}", e.what()));
  }
  po.coding = o.coding;
  SurfacePlan plan = plan_surface(config, base, po);
  SearchOptions search{config.peak(), o.target.empty() ? config.peak().target : Target::parse(o.target)};
  std::string policy = o.policy.empty() ? config.peak().policy : o.policy;
  make_picker(policy, config.peak(), config.peak().start_rate);  // rejects an unknown policy now
  if (o.budget_h < 0) throw InputError("--budget: must be a positive number of hours");
  std::optional<TestbedConfig> real = validate_testbed(config);
  ProbeConfig probing = probe_config(config);
  std::vector<std::optional<TestbedConfig>> slots = testbed_slots(config, real, o.parallel);

  // The parameters that make two runs the same surface (not --parallel or --budget: a surface may
  // be continued with more slots or a larger budget).
  nlohmann::json options = peak_options_json(search.peak);
  std::vector<std::string> tour_keys;
  std::vector<Sample> tour;
  for (Eigen::Index row : plan.tour) {
    tour.push_back(plan.samples[static_cast<std::size_t>(row)]);
    tour_keys.push_back(tour.back().key());
  }
  nlohmann::json params{{"factors", plan.factors},
                        {"design", plan.kind},
                        {"tour", tour_keys},
                        {"base", base.key()},
                        {"policy", policy},
                        {"seeding", o.seeding},
                        {"seed", seed},
                        {"target", {search.target.confidence, search.target.accuracy}},
                        {"peak", options}};
  surface_model_params(plan, params);

  const std::string store_path = common.store_or(config.store_path());
  std::int64_t surface_id = 0;
  ExpectedPeak expected;
  store::Store store(store_path);
  Leases leases(store_path, config.lease_timeout_s());
  leases.sweep(store, std::cerr);
  {
    if (o.seeding) expected = expected_peak_for_seeding(config, store);
    // Found or created in one transaction: two controllers started at once share one surface.
    store::Transaction tx(store.db());
    if (auto found = store.find_running_surface(config.name(), params.dump())) {
      surface_id = found->id;
      std::cerr << fmt::format("continuing surface {} ({} samples)\n", surface_id, found->points.size());
    } else {
      surface_id = store.create_surface(config.name(), params.dump(), params.dump(), tour);
      std::cerr << fmt::format("surface {}: {} samples of {}\n", surface_id, tour.size(),
                               plan.candidates.rows());
    }
    tx.commit();
  }

  SurfaceRunOptions ro;
  ro.store_path = store_path;
  ro.leases = &leases;
  ro.parallel = o.parallel;
  ro.seeding = o.seeding;
  ro.budget_s = o.budget_h * 3600;
  ro.search = search;
  ro.policy = policy;
  ro.start_rate = config.peak().start_rate;
  ro.search_record.testbed = config.name();
  ro.search_record.confidence = search.target.confidence;
  ro.search_record.accuracy = search.target.accuracy;
  ro.search_record.policy = policy;
  ro.search_record.seed = static_cast<std::int64_t>(seed);
  ro.search_record.options_json = options.dump();
  ro.make_runner = [&](int slot) {
    return make_trial_runner(config, slots[static_cast<std::size_t>(slot)], seed, o.verbose, store_path);
  };
  ro.log = [](const std::string& line) { std::cerr << line << "\n"; };
  ro.verbose = o.verbose;
  ro.factors = &config.factors();
  ro.expected = expected;
  ro.config = &config;
  ro.probing = probing;

  SurfaceRun run = run_surface(surface_id, ro);

  SurfaceReport report;
  report.surface_id = surface_id;
  report.config = &config;
  report.plan = &plan;
  report.run = &run;
  report.status = run.budget_stopped ? "budget" : "done";
  report.policy = policy;
  report.seeding = o.seeding;
  report.parallel = o.parallel;
  fit_report_surface(report);
  store.finish_surface(surface_id, report.status);
  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (common.json)
    std::cout << surface_json(report).dump(2) << "\n";
  else
    print_surface(std::cout, report);
  return to_int(report.status == "done" && report.surface ? ExitStatus::kOk : ExitStatus::kNegative);
}

}  // namespace

Command map_surface_command() {
  return Command{
      "map-surface",
      "Map how the peak rate λ* changes across factors (Algorithm 1 of the workbench paper): measure a "
      "D-optimal subset of the factor grid (or all of it) with one peak search each, fit a response "
      "surface (quadratic by default) and report measured and predicted λ*. Everything is stored as it "
      "happens; running the same command again continues an interrupted surface. Exit 0 when done and "
      "fitted, 1 otherwise.\n\nWhen λ* saturates (a plateau where a resource such as the disks limits "
      "it, flat in one factor at low levels of another), a quadratic cannot follow it. For such "
      "throughput-bound surfaces use --response reciprocal --coding inverse: 1/λ* is then fitted as a "
      "polynomial in 1/disks and 1/threads, which the operational laws make nearly linear where one "
      "pool of servers limits the rate. --model cubic adds the third-order terms when the LOO MAPE "
      "stays high and there are enough points (10 terms for two factors).",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<MapSurfaceOptions>();
        add_common_options(app, common);
        app.add_option("--factors,-f", o->factors, "numeric factors of the surface, e.g. disks,threads")
            ->required();
        app.add_option("--design,-d", o->design,
                       "full (every level combination) or dopt (D-optimal subset; default)");
        app.add_option("--points,-n", o->points, "dopt: number of samples (default: model terms + 2)")
            ->transform(cli::whole_number(1, 100000));
        app.add_option("--set,-s", o->set,
                       "levels of the other factors, e.g. mix=read (others: their default)");
        app.add_option("--policy,-p", o->policy, "load picker of each search (default: [peak] policy)");
        app.add_option("--target,-t", o->target,
                       "CONFIDENCE/ACCURACY of each search (default: [peak] target)");
        app.add_flag(
            "--seeding", o->seeding,
            "start each search at the λ* of the nearest measured sample (with a [model]: scaled by the "
            "model's λ* ratio of the two samples); model-safe also aims with the slope of their curves");
        app.add_option("--parallel,-j", o->parallel, "testbed slots running searches at once (default 1)")
            ->transform(cli::whole_number(1, 1000));
        app.add_option("--budget", o->budget_h, "stop starting searches once the total cost reaches HOURS")
            ->check(cli::finite_number(0, 1e6));
        app.add_option("--seed", o->seed,
                       "random seed of the design and the simulated testbed (default: [sim] seed)")
            ->transform(cli::seed_number())
            ->each([o](const std::string&) { o->seed_given = true; });
        app.add_option("--model,-m", o->model,
                       "terms of the surface: linear, interactions, quadratic (default) or cubic; the "
                       "D-optimal design is chosen for these terms");
        app.add_option("--response,-r", o->response,
                       "scale the surface is fitted on: identity (default), log (multiplicative effects) "
                       "or reciprocal (1/λ*: throughput-bound systems whose λ* levels off; use with "
                       "--coding inverse); predictions are reported in requests/s");
        app.add_option("--coding", o->coding,
                       "scale of every factor before coding to [-1, 1]: auto (default: log when levels "
                       "span 10x, else linear), linear, log or inverse (1/x, for server and thread counts)");
        app.add_flag("--verbose,-v", o->verbose, "log every stored trial to stderr");
        return [&common, o] { return run_map_surface(common, *o); };
      }};
}

}  // namespace wb
