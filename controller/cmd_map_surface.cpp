// `workbench map-surface`: [003 Alg. 1] with a D-optimal response surface [003 §4, §5.3.2]: chooses
// and tours the samples, searches each (on K slots at once), stores all as it happens, fits the surface
// and reports measured and predicted λ*. Running the same command again continues an unfinished one.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/surface_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/exit_status.hpp"
#include "experiment/surface_map.hpp"

namespace wb {

namespace {

struct MapSurfaceOptions {
  MapSurfaceRequest request;
  std::uint64_t seed = 0, design_seed = 0;
  bool seed_given = false, design_seed_given = false;
};

int run_map_surface(const CommonOptions& common, MapSurfaceOptions& o) {
  if (o.seed_given) o.request.seed = o.seed;
  if (o.design_seed_given) o.request.design_seed = o.design_seed;
  Config config = Config::load(common.config);
  SurfaceReport report = map_surface(config, common.store_or(config.store_path()), o.request, std::cerr);
  if (common.json)
    std::cout << surface_json(report).dump(2) << "\n";
  else
    print_surface(std::cout, report);
  const bool complete = report.status == store::SurfaceState::kDone && !report.incomplete();
  return to_int(complete && report.fit.surface ? ExitStatus::kOk : ExitStatus::kNegative);
}

}  // namespace

Command map_surface_command() {
  return Command{
      "map-surface",
      "Map how the peak rate λ* changes across factors (Algorithm 1 of the workbench paper): measure a "
      "D-optimal subset of the factor grid (or all of it) with one peak search each, fit a response "
      "surface and report measured and predicted λ*. Everything is stored as it happens; running the "
      "same command again continues an interrupted surface and reports a finished one without measuring. "
      "Exit 0 when every sample has a λ* and the surface is fitted, 1 otherwise (a sample whose search "
      "found no λ* makes the surface incomplete: it is fitted over the others)."
      "\n\nBy default (--model auto) the data choose the surface's class: polynomials of the coded "
      "factors, 1/λ* in 1/factor (the operational laws of a throughput-bound system, where λ* levels "
      "off) and, when the config has a [model], classes anchored to its expectation that fit only what "
      "the queueing model gets wrong (e.g. ln(measured/expected λ*)). Each class is ranked by its "
      "leave-one-out error, inflated for the terms it spends; the report names the chosen class, its "
      "error and the runner-up. --model with --response and --coding fixes one class instead.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<MapSurfaceOptions>();
        add_common_options(app, common);
        app.add_option(
               "--factors,-f", o->request.factors,
               "factors of the surface, e.g. disks,threads; a categorical one (a filesystem, a mix) shifts "
               "and tilts the surface per level (indicator terms)")
            ->required();
        app.add_option("--design,-d", o->request.design,
                       "full (every level combination) or dopt (D-optimal subset; default)");
        app.add_option("--points,-n", o->request.points, "dopt: number of samples (default: model terms + 2)")
            ->transform(cli::whole_number(1, 100000));
        app.add_option("--set,-s", o->request.set,
                       "levels of the other factors, e.g. mix=read (others: their default)");
        app.add_option("--policy,-p", o->request.policy,
                       "load picker of each search (default: [peak] policy)");
        app.add_option("--target,-t", o->request.target,
                       "CONFIDENCE/ACCURACY of each search (default: [peak] target)");
        app.add_flag(
            "--seeding", o->request.seeding,
            "start each search at the λ* of the nearest measured sample (with a [model]: scaled by the "
            "model's λ* ratio of the two samples); model-safe also aims with the slope of their curves");
        app.add_option("--parallel,-j", o->request.parallel,
                       "testbed slots running searches at once (default 1)")
            ->transform(cli::whole_number(1, 1000));
        app.add_option("--target-error", o->request.target_error,
                       "after the design, add D-optimal samples (as many at a time as --parallel) until "
                       "the fitted class's leave-one-out MAPE is at most PCT percent, the budget ends or "
                       "every sample is measured (default 0: the design only)")
            ->check(cli::finite_number(0, 1000));
        app.add_option("--budget", o->request.budget_h,
                       "stop starting searches once the total cost reaches HOURS")
            ->check(cli::finite_number(0, 1e6));
        app.add_option("--seed", o->seed,
                       "random seed of the simulated testbed's noise, and of the design unless "
                       "--design-seed is given (default: [sim] seed)")
            ->transform(cli::seed_number())
            ->each([o](const std::string&) { o->seed_given = true; });
        app.add_option("--design-seed", o->design_seed,
                       "random seed of the D-optimal design's exchange starts (default: --seed)")
            ->transform(cli::seed_number())
            ->each([o](const std::string&) { o->design_seed_given = true; });
        app.add_option("--model,-m", o->request.model,
                       "auto (default: chosen by cross-validation, design for a quadratic) or one "
                       "class's terms: constant, linear, interactions, quadratic or cubic; the D-optimal "
                       "design is chosen for these terms");
        app.add_option("--response,-r", o->request.response,
                       "with a fixed --model, the scale it is fitted on: identity (default), log "
                       "(multiplicative effects) "
                       "or reciprocal (1/λ*: throughput-bound systems whose λ* levels off; use with "
                       "--coding inverse); predictions are reported in requests/s");
        app.add_option("--coding", o->request.coding,
                       "with a fixed --model, the scale of every factor before coding to [-1, 1]: auto "
                       "(default: log when levels "
                       "span 10x, else linear), linear, log or inverse (1/x, for server and thread counts)");
        app.add_flag("--verbose,-v", o->request.verbose, "log every stored trial to stderr");
        return [&common, o] { return run_map_surface(common, *o); };
      }};
}

}  // namespace wb
