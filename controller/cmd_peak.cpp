// `workbench peak`: one peak search [003 Alg. 2] for one sample, every trial stored as it ends.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "experiment/leases.hpp"
#include "experiment/peak_search.hpp"
#include "experiment/probe_check.hpp"
#include "experiment/testbed.hpp"
#include "models/probe_plan.hpp"
#include "policies/search.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

struct PeakOptions {
  std::string set;
  std::string target;
  std::string policy;
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool verbose = false;
  bool seeding = false;
  std::string runlength;
};

int run_peak(const CommonOptions& common, const PeakOptions& o) {
  // Everything the user gave is validated before the store is opened: bad input changes nothing.
  Config config = Config::load(common.config);
  Sample sample = config.sample(o.set);
  PeakRequest request{o.target, o.policy, o.runlength, std::nullopt, o.seeding, o.verbose, {}};
  if (o.seed_given) request.seed = o.seed;
  PreparedPeak prepared = prepare_peak(config, request);
  validate_testbed(config);
  ProbeConfig probing = probe_config(config);

  const std::string store_path = common.store_or(config.store_path());
  store::Store store(store_path);
  Leases leases(store_path, config.lease_timeout_s());
  leases.sweep(store, std::cerr);
  // The expectation stored with the search (`workbench report`), and a mismatch check against it,
  // in the transaction that stores the result.
  PeakRun run =
      run_peak_search(config, store, leases, sample, request, prepared, std::cerr, [&](const PeakRun& r) {
        check_search(store, config, probing, sample, r.search_id, r.result, std::nullopt, std::cerr);
      });

  PeakReport report{run.search_id,   &config,       sample,     prepared.target,
                    prepared.policy, prepared.seed, &run.result};
  if (common.json)
    std::cout << peak_json(report).dump(2) << "\n";
  else
    print_peak(std::cout, report);
  return to_int(has_peak(run.result.status) ? ExitStatus::kOk : ExitStatus::kNegative);
}

}  // namespace

Command peak_command() {
  return Command{
      "peak",
      "Find the peak rate λ*: the highest offered load before the mean response time leaves the peak-rate "
      "region [R_sat(1-s), R_sat(1+s)], with the target confidence and accuracy (Algorithm 2 of the "
      "workbench paper). A server that saturates with a step, its response jumping from below the region "
      "to far above it between two loads closer than the accuracy asks, ends with status cliff: λ* is the "
      "knee, the last load below the step. A server that over a band of loads either keeps up or falls "
      "into a queue it does not leave, trial by trial, ends with status bistable when no load answers "
      "inside the region: λ* is the highest load below every stall, the interval reaches to the highest "
      "load that still kept up. Exit 0 when found, cliff or bistable, 1 when not (status not-found, "
      "budget or failed), 130 when interrupted.\n\nEvery trial is stored as it ends. Running the same "
      "command again after an "
      "interrupted run (Ctrl-C, a lost terminal, a crash, kill -9) continues that search from its stored "
      "trials; while another controller runs the same search, this one waits for it and then reports it.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<PeakOptions>();
        add_common_options(app, common);
        app.add_option("--set,-s", o->set,
                       "factor levels of the sample, e.g. disks=2,threads=16 (others: their default)");
        app.add_option("--target,-t", o->target,
                       "CONFIDENCE/ACCURACY in percent, e.g. 95/90 (default: [peak] target)");
        std::string policies = "load picker (default: [peak] policy):";
        for (const auto& name : picker_names()) policies += "\n  " + name + ": " + picker_summary(name);
        app.add_option("--policy,-p", o->policy, policies);
        app.add_flag(
            "--seeding", o->seeding,
            "start at the λ* of the nearest sample already measured on this testbed (in the store) "
            "instead of [peak] start_rate; with a [model], that λ* times the model's λ* here over its "
            "λ* there (with no earlier search: the model's λ*); model-safe also aims with the slope "
            "(elasticity) of those samples' response curves");
        app.add_option("--runlength", o->runlength,
                       "fixed ([peak] runlength_s) or adaptive (r per load from the variance seen so far) "
                       "(default: [peak] runlength)");
        app.add_option("--seed", o->seed, "random seed of the simulated testbed (default: [sim] seed)")
            ->transform(cli::seed_number())
            ->each([o](const std::string&) { o->seed_given = true; });
        app.add_flag("--verbose,-v", o->verbose, "log every stored trial to stderr");
        return [&common, o] { return run_peak(common, *o); };
      }};
}

}  // namespace wb
