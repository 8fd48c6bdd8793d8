#pragma once
#include <cstdint>
#include <string>

#include "core/config.hpp"

namespace wb::sim {

// The true peak of a simulated sample: the loads at which the steady-state response metric of the
// region (mean or percentile) equals sat (peak_rate), sat(1-s) (region_low) and sat(1+s)
// (region_high).
struct Truth {
  double peak_rate = 0;
  double region_low = 0;
  double region_high = 0;
};

// Steady-state mean response time (ms) at `rate` from one long run of about `requests` arrivals
// with common random numbers for `seed`; +infinity when the run saturates (timeouts, or fewer
// than 99.9% of arrivals served).
double long_run_mean_ms(const SimConfig& config, const Sample& sample, double rate, std::uint64_t seed,
                        double requests = 200000);
// The same for any response metric (a percentile by the nearest-rank rule over the long run).
double long_run_metric_ms(const SimConfig& config, const Sample& sample, double rate, std::uint64_t seed,
                          ResponseMetric metric, double requests = 200000);

// Finds the three loads by bracketing and bisection on long runs (to 0.1% in rate). Takes a few
// seconds of real time; callers cache the result (the store does).
Truth compute_truth(const SimConfig& config, const Sample& sample, const PeakRegion& region,
                    std::uint64_t seed = 1);

// Identifies what a cached truth was computed from: the [sim] section, the region and the version
// of compute_truth (truths cached by an older one are recomputed).
std::string truth_key(const Config& config);

}  // namespace wb::sim
