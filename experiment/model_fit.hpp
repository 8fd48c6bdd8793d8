#pragma once
// `workbench model calibrate --method fit`: black-box calibration from what the store measured —
// every trial's mean response at its rate (demand_inference.hpp) — and the check of seed 002's
// Table 1: from the low-load trials of each search that found λ*, how far the queueing fit's λ*
// lands from the measured one, next to linear, quadratic and power-law regressions on the same
// trials.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "experiment/demand_inference.hpp"

namespace wb {

struct ExtrapolationRow {
  std::int64_t search_id = 0;
  Sample sample;
  double measured_peak = 0;
  std::size_t points = 0;          // trials at or below low_fraction × the measured λ*
  double highest_rate = 0;         // the highest rate among them
  std::optional<double> queueing;  // λ* predicted from those trials (nullopt: too few, or no crossing)
  std::optional<double> linear, quadratic, power_law;
};

struct ModelFitRequest {
  std::string set;             // only this sample ("" : every sample with measured loads)
  double low_fraction = 0.75;  // what counts as low load in the extrapolation table
  bool store = true;           // keep the fitted demands as the testbed's calibrations
};

struct ModelFitResult {
  DemandInference fit;
  std::vector<Sample> samples;           // those with measured loads that were fitted
  std::vector<CalibratedDemand> stored;  // the calibrations it stored (or would store)
  std::vector<ExtrapolationRow> extrapolation;
};

// Trials whose generators fell short of the offered rate by more than 10 % (an overloaded server or
// client) are left out: the open network describes a system that keeps up. InputError without a
// [model], for a bad --set, or with too few measured loads; nothing is stored then.
ModelFitResult fit_model_from_store(const Config& config, const std::string& store_path,
                                    const ModelFitRequest& r);

}  // namespace wb
