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

// Distance between two samples over the numeric factors: each factor's difference in level
// position divided by (number of levels − 1), so 0..1 per factor whatever its units and spacing
// (threads 1, 2, 4, ..., 100 are evenly spaced by position), combined as a Euclidean norm. A value
// that is not a declared level is placed by linear interpolation between levels.
double sample_distance(const Sample& a, const Sample& b, const std::vector<Factor>& factors);

// [003 §3.7] The seed for a search of `sample`: the peak rate of the nearest past sample. Only past
// samples with the same levels of every categorical factor count; several at the same smallest
// distance (including repeated searches of one sample) give their median. When no past sample
// matches the categorical levels, or there are no numeric factors to measure nearness by, the
// seed is the median of the matching samples' peaks, else of all past peaks (the paper's
// "aggregate of peak rates from previous samples"). nullopt when `past` is empty. A past peak
// with a centre is taken at its centre rather than where its claim happened to be (on
// bench/policies, 20 seeds: model-safe +seeding 21.2 -> 19.6 h).
//
// With `expected` (the testbed has an expectation model), each chosen past peak is first scaled by
// E(sample)/E(past sample): the model carries the neighbour's measured λ* across the factor levels
// that differ, and its own error, shared by neighbours, cancels in the ratio. A past sample the
// model has no λ* for is used unscaled. With no past peaks at all the seed is E(sample) itself
// (`from` empty, distance NaN).
std::optional<SeedChoice> choose_seed(const Sample& sample, const std::vector<PastPeak>& past,
                                      const std::vector<Factor>& factors, const ExpectedPeak& expected = {});

}  // namespace wb
