#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/factor.hpp"
#include "core/sample.hpp"
#include "core/search_result.hpp"

namespace wb {

// A peak rate found earlier on the same testbed (plain data: the controller reads it from the
// store).
struct PastPeak {
  Sample sample;
  double peak_rate = 0;
  double elasticity = 0;  // its response_elasticity() at λ* (policies/curve_fit.hpp); 0: unknown
  double centre = 0;      // its region_centre() (curve_fit.hpp), which the seed is taken from; 0: peak_rate
};

// A found search as a past peak: its elasticity and region centre from its loads (curve_fit.hpp), of
// the mean response time, so none for a percentile region.
PastPeak past_peak(const Sample& sample, const std::vector<TestLoad>& loads, double peak_rate,
                   const PeakConfig& peak);

struct SeedChoice {
  double rate = 0;
  std::vector<Sample> from;  // the past samples whose peaks made the seed
  double distance = 0;       // their normalized distance to the sample (0..1 per numeric factor)
  bool scaled = false;       // each past peak was scaled by the expectation's ratio (see below)
  // The median elasticity of the `from` samples that have one, else of every past peak that has
  // one (the testbed's curves near their peaks differ less than their rates); 0 when none has.
  double elasticity = 0;
};

// The expectation model's λ* for a sample, or nullopt where it has none (plain data for the
// policies layer: the controller passes a closure over its [model]).
using ExpectedPeak = std::function<std::optional<double>(const Sample&)>;

// Distance between two samples over the numeric factors: per factor the difference in level position
// over (levels − 1), 0..1 whatever the units (values between levels interpolate), combined as a
// Euclidean norm.
double sample_distance(const Sample& a, const Sample& b, const std::vector<Factor>& factors);

// [003 §3.7] The seed for `sample`: the peak (at its region's centre) of the nearest past sample with
// the same categorical levels, median over ties; else the median of the matching, else of all, past
// peaks. With `expected`, each is scaled by E(sample)/E(past) where both exist, and with no usable
// past peak the seed is E(sample) (`from` empty, distance NaN); nullopt with neither.
// Why: docs/decisions.md#seeding.
std::optional<SeedChoice> choose_seed(const Sample& sample, const std::vector<PastPeak>& past,
                                      const std::vector<Factor>& factors, const ExpectedPeak& expected = {});

}  // namespace wb
