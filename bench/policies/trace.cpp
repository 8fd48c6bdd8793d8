// bench_policies_trace: the searches of chosen pickers (unseeded, or seeded with --seeding) on one sample of
// configs/sim.toml, one line per seed with every load the search measured, and the median cost per picker —
// to see where a picker's cost on a sample comes from (bench_policies' per-sample table says only how much it
// is). The seeds, testbed streams, truths and tours are bench_policies': each search runs in the
// nearest-neighbour tour up to the sample, because the adaptive runlength plans with the variances
// of the tour's earlier searches (this testbed's history), so seed k here is seed k there and the
// costs match its unseeded per-sample table. (The sample alone, without that history, gave other
// costs: binsearch's median at disks=4,threads=4 0.96 h over 100 seeds against 0.83 h in the tour.)
//
// With --seeding each search starts where bench_policies' "+seeding" variants start it (the tour's
// earlier peaks carried by the expectation model), and the line gives that start after "from".
//
// Usage: bench_policies_trace SAMPLE [--seeds N] [--policies P,Q] [--seeding] [--threads N] [--config F]
//                             [--quiet]
//   SAMPLE: e.g. disks=4,threads=4.  Defaults: 20 seeds, binsearch and model-safe, unseeded, 1 thread.
//   Each load prints as rate/trials followed by its verdict: b below, a above, s saturated, P the
//   claimed peak, and * when it was judged by its mean while its CI still overlapped the region.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/error.hpp"
#include "tour.hpp"

using namespace wb;

int main(int argc, char** argv) {
  int seeds = 20, threads = 1;
  bool quiet = false, seeding = false;
  std::vector<std::string> policies{"binsearch", "model-safe"};
  std::string config_path = std::string(WB_SOURCE_DIR) + "/configs/sim.toml";
  std::string sample_text;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (arg("--seeds")) {
      seeds = std::atoi(argv[++i]);
    } else if (arg("--threads")) {
      threads = std::atoi(argv[++i]);
    } else if (arg("--config")) {
      config_path = argv[++i];
    } else if (arg("--policies")) {
      policies.clear();
      std::stringstream list(argv[++i]);
      for (std::string name; std::getline(list, name, ',');) policies.push_back(name);
    } else if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else if (std::strcmp(argv[i], "--seeding") == 0) {
      seeding = true;
    } else if (argv[i][0] != '-' && sample_text.empty()) {
      sample_text = argv[i];
    } else {
      sample_text.clear();
      break;
    }
  }
  if (sample_text.empty() || seeds < 1) {
    fmt::print(stderr,
               "usage: bench_policies_trace SAMPLE [--seeds N] [--policies P,Q] [--seeding] [--threads N] "
               "[--config F] [--quiet]\n"
               "  e.g. bench_policies_trace disks=4,threads=4 --seeds 100\n");
    return 2;
  }
  try {
    const Config c = Config::load(config_path);
    const Sample sample = c.sample(sample_text);
    const std::vector<Sample> samples = all_samples(c);
    const auto truths = load_truths(c, samples);
    // The tour up to and including the sample.
    std::vector<Sample> tour = nearest_neighbour_tour(samples, c.factors());
    auto at =
        std::find_if(tour.begin(), tour.end(), [&](const Sample& s) { return s.key() == sample.key(); });
    if (at == tour.end())
      throw Error("bench_policies_trace: " + sample.key() + " is not a sample of the tour");
    tour.erase(at + 1, tour.end());
    const sim::Truth& truth = truths.at(sample.key());
    const double sat = c.peak().region.sat_ms;
    fmt::print("{}: true λ* {:.1f}/s, region [{:.1f}, {:.1f}]; {}, target {}, {} seeds\n", sample.key(),
               truth.peak_rate, truth.region_low, truth.region_high, seeding ? "seeded" : "unseeded",
               c.peak().target.to_string(), seeds);
    const ExpectedPeak expected = seeding ? model_peaks(c, samples) : ExpectedPeak{};
    std::vector<double> medians;
    for (const auto& policy : policies) {
      const Variant v{policy, "adaptive", seeding};
      std::vector<Outcome> outcomes(static_cast<std::size_t>(seeds));
      parallel_for(seeds, threads, [&](int k) {
        outcomes[static_cast<std::size_t>(k)] =
            run_tour(c, tour, truths, expected, v, c.peak().target, k + 1).back();
      });
      std::vector<double> costs;
      for (int seed = 1; seed <= seeds; ++seed) {
        const Outcome& o = outcomes[static_cast<std::size_t>(seed - 1)];
        costs.push_back(o.cost);
        if (quiet) continue;
        std::string path = seeding ? fmt::format(" from {:.1f}:", o.start) : "";
        for (const auto& sd : o.sides) {
          const char* verdict = sd.saturated ? "s" : (sd.mean < sat ? "b" : "a");
          path += fmt::format(" {:.1f}/{}{}{}", sd.rate, sd.trials, verdict, sd.evidence ? "" : "*");
        }
        if (o.found) path += fmt::format(" {:.1f}/{}P", o.claim_rate, o.claim_trials);
        fmt::print("  {:<11} seed {:>3} {:>6.2f} h{}\n", policy, seed, o.cost / 3600, path);
      }
      medians.push_back(median(costs));
      double mean = 0;
      for (double x : costs) mean += x / static_cast<double>(costs.size()) / 3600;
      fmt::print("{:<11} median {:.2f} h, mean {:.2f} h\n", policy, medians.back() / 3600, mean);
    }
    if (medians.size() == 2 && medians[0] > 0)
      fmt::print("{} ÷ {} median: {:.2f}\n", policies[1], policies[0], medians[1] / medians[0]);
  } catch (const Error& e) {
    fmt::print(stderr, "bench_policies_trace: {}\n", e.what());
    return 2;
  }
  return 0;
}
