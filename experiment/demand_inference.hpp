#pragma once
// Black-box calibration: the [model] centers' demands inferred from measured load–response points
// alone, for a SUT that reports no stage times [002: queue-network inference from incomplete
// observations]. Each center's demand is its configured demand times a multiplier m_c; the
// measured mean response of a trial at rate λ is log-normal around the network's R(λ) with an
// unknown spread σ, and log m_c has a weak prior N(0, (ln 10 / 2)²) (within 10x of the configured
// demand at 95 %), which keeps demands that the points cannot tell apart (two delay centers) at
// their configured ratio. The posterior mode is found by Levenberg–Marquardt; the intervals come
// from the Laplace approximation at the mode. docs/decisions.md#black-box-calibration.
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/sample.hpp"
#include "experiment/expectation.hpp"

namespace wb {

// One measurement: a trial's mean response time at an offered rate, at a sample.
struct LoadPoint {
  Sample sample;
  double rate = 0;
  double mean_ms = 0;
};

struct InferredCenter {
  std::string center;
  double multiplier = 1;     // of the demand the model had before (configured or calibrated)
  double low = 1, high = 1;  // the multiplier's interval at the fit's confidence
};

struct DemandInference {
  std::vector<InferredCenter> centers;  // every non-pool center with a positive demand
  double sigma = 0;                     // spread of log(measured / model R), fitted
  std::size_t points = 0;
  int iterations = 0;
  double confidence = 0.9;
};

// Fits the multipliers to `points` (every point's sample must be a sample of `config`). InputError
// without a [model], with fewer points than centers + 2, or when no point has a finite R.
DemandInference infer_demands(const Config& config, const std::vector<LoadPoint>& points,
                              const std::vector<CalibratedDemand>& calibrations, double confidence = 0.9);

// The calibrations that put an inference into the model: per center, one per distinct setting of
// the factors its demand depends on among `samples` (the demand there times the multiplier).
std::vector<CalibratedDemand> inferred_calibrations(const Config& config, const DemandInference& fit,
                                                    const std::vector<Sample>& samples,
                                                    const std::vector<CalibratedDemand>& calibrations);

// λ* at `sample` with the inferred multipliers applied.
double inferred_peak(const Config& config, const DemandInference& fit, const Sample& sample,
                     const std::vector<CalibratedDemand>& calibrations);

// The regressions seed 002 compares the queueing fit with, on load–response points of one sample,
// and the rate where each reaches r_sat_ms (nullopt: the fit never reaches it above the points).
enum class Regression { kLinear, kQuadratic, kPowerLaw };
const char* regression_name(Regression r);
std::optional<double> regression_peak(Regression r, const std::vector<LoadPoint>& points, double r_sat_ms);

}  // namespace wb
