// `workbench sim truth`: the true λ* and peak-region bounds of a simulated sample.
#include <fmt/format.h>

#include <iostream>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "core/error.hpp"
#include "experiment/testbed.hpp"
#include "harness/sim/truth.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

struct TruthOptions {
  std::string set;
};

int run_truth(const CommonOptions& common, const TruthOptions& o) {
  Config config = Config::load(common.config);
  if (!config.sim()) throw InputError(config.file() + ": `sim truth` needs a [sim] section");
  Sample sample = config.point(o.set);

  store::Store store(common.store_or(config.store_path()));
  std::string hash = sim::truth_key(config);
  auto cached = store.find_truth(config.name(), sample.key(), hash);
  store::Store::TruthRow row;
  if (cached) {
    row = *cached;
  } else {
    sim::Truth t = sim::compute_truth(*config.sim(), sample, config.peak().region, config.sim()->seed);
    row = {t.peak_rate, t.region_low, t.region_high};
    store.put_truth(config.name(), sample.key(), hash, row);
  }
  if (common.json) {
    nlohmann::json j{{"sample", sample_json(config, sample)},
                     {"peak_rate", row.peak_rate},
                     {"region_low", row.region_low},
                     {"region_high", row.region_high}};
    std::cout << j.dump(2) << "\n";
  } else {
    const PeakRegion& region = config.peak().region;
    fmt::print("true peak of {} on {}: λ* = {:.1f}/s ({} response {:g} ms)\n", sample.key(), config.name(),
               row.peak_rate, metric_name(region.metric), region.sat_ms);
    fmt::print("peak-rate region: [{:.1f}, {:.1f}] requests/s\n", row.region_low, row.region_high);
  }
  return 0;
}

}  // namespace

Command sim_command() {
  return Command{
      "sim", "Simulated testbeds: `sim truth` computes the true λ* and peak-region loads of a sample.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<TruthOptions>();
        app.require_subcommand(1);
        CLI::App* truth = app.add_subcommand(
            "truth",
            "The loads at which the true response metric of the peak-rate region (the mean, or [peak] "
            "percentile) equals its limit (peak_rate), limit(1-s) (region_low) and limit(1+s) (region_high), "
            "from long simulations; cached in the store.");
        add_common_options(*truth, common);
        truth->add_option("--set,-s", o->set, "factor levels of the sample, e.g. disks=2,threads=16");
        return [&common, o] { return run_truth(common, *o); };
      }};
}

}  // namespace wb
