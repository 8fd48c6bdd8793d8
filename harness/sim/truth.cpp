#include "harness/sim/truth.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

#include "core/error.hpp"
#include "harness/sim/random.hpp"
#include "harness/sim/simulation.hpp"

namespace wb::sim {

double long_run_mean_ms(const SimConfig& config, const Sample& sample, double rate, std::uint64_t seed,
                        double requests) {
  return long_run_metric_ms(config, sample, rate, seed, ResponseMetric::kMean, requests);
}

double long_run_metric_ms(const SimConfig& config, const Sample& sample, double rate, std::uint64_t seed,
                          ResponseMetric metric, double requests) {
  RunSpec spec;
  spec.rate = rate;
  spec.runlength_s = requests / rate;
  // Long enough to forget the empty start even near saturation, where relaxation is slow.
  spec.warmup_s = std::max(config.warmup_s, 0.1 * spec.runlength_s);
  spec.timeout_s = 60;
  spec.seed = mix(seed, hash_text(sample.key()));
  RunOutcome o = simulate(config.network, sample, spec);
  if (o.response_ms.empty() || o.timeouts > 0 ||
      static_cast<double>(o.completed) < 0.999 * static_cast<double>(o.sent)) {
    return std::numeric_limits<double>::infinity();
  }
  if (auto q = metric_quantile(metric)) return nearest_rank(o.response_ms, *q);
  return std::accumulate(o.response_ms.begin(), o.response_ms.end(), 0.0) /
         static_cast<double>(o.response_ms.size());
}

namespace {

// Version 2 brackets each crossing on its own (version 1 shared one lower end, which could lie
// inside the region and pull all three loads onto it).
constexpr int kTruthVersion = 2;

// The load in [lo, hi] where R(λ) crosses `target_ms`, R(lo) < target <= R(hi).
double bisect(const SimConfig& c, const Sample& s, std::uint64_t seed, ResponseMetric metric,
              double target_ms, double lo, double hi) {
  while (hi - lo > 1e-3 * hi) {
    double mid = (lo + hi) / 2;
    if (long_run_metric_ms(c, s, mid, seed, metric) < target_ms)
      lo = mid;
    else
      hi = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

Truth compute_truth(const SimConfig& config, const Sample& sample, const PeakRegion& region,
                    std::uint64_t seed) {
  const double low_ms = region.low_ms(), high_ms = region.high_ms();
  const ResponseMetric m = region.metric;
  // The three brackets halve from the same top: each rate is simulated once.
  std::map<double, double> runs;
  auto metric_at = [&](double rate) {
    auto it = runs.find(rate);
    if (it == runs.end()) it = runs.emplace(rate, long_run_metric_ms(config, sample, rate, seed, m)).first;
    return it->second;
  };
  // Bracket: grow until the metric is past the region's top.
  double hi = 1;
  for (int i = 0; metric_at(hi) < high_ms; ++i) {
    if (i > 60) throw Error("sim truth: response time never reaches the peak region for " + sample.key());
    hi *= 2;
  }
  // Each crossing gets its own bracket: halve from hi until the metric is below its target. A
  // shared lower end (the last power of two below the top) can lie inside the region itself.
  auto crossing = [&](double target_ms) {
    double upper = hi, lower = hi / 2;
    for (int i = 0; metric_at(lower) >= target_ms; ++i) {
      if (i > 60)
        throw Error("sim truth: response time is above the peak region even at negligible load for " +
                    sample.key());
      upper = lower;
      lower /= 2;
    }
    return bisect(config, sample, seed, m, target_ms, lower, upper);
  };
  Truth t;
  t.region_low = crossing(low_ms);
  t.peak_rate = crossing(region.sat_ms);
  t.region_high = crossing(high_ms);
  return t;
}

std::string truth_key(const Config& config) {
  std::ostringstream text;
  const PeakRegion& region = config.peak().region;
  text << *config.root().get("sim")->as_table() << "|" << region.sat_ms << "|" << region.width;
  if (region.metric != ResponseMetric::kMean) text << "|" << metric_name(region.metric);
  text << "|v" << kTruthVersion;
  return fmt::format("{:016x}", hash_text(text.str()));
}

}  // namespace wb::sim
