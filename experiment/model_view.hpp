#pragma once
// `workbench model show` and `workbench model calibrate`: the expectation model of a testbed with
// its configured and calibrated demands, and calibration from refserver's per-stage times or by the
// service demand law D = U/X from its disks' utilization [000 §4.1.1].
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.hpp"
#include "experiment/expectation.hpp"
#include "experiment/model_learning.hpp"
#include "experiment/zcart_factor_splits.hpp"
#include "models/zcart.hpp"

namespace wb {

struct ModelCenterView {
  std::string name;
  bool pool = false;
  std::string servers_expr;  // as configured (a number when it is constant)
  double servers = 0;        // at the sample
  // Queues only (not pools):
  std::string discipline;
  std::string within;  // the pool held while visiting, or ""
  double visits = 1;
  double configured_demand_ms = 0;             // per visit
  std::optional<CalibratedDemand> calibrated;  // the latest calibration that applies to the sample
  double demand_per_request_ms = 0;            // calibrated where there is one
};

struct ModelView {
  Sample sample;
  std::vector<ModelCenterView> centers;        // in declaration order
  std::vector<CalibratedDemand> calibrations;  // every stored one of the testbed
  PeakExpectation calibrated;                  // λ* with the calibrations
  PeakExpectation configured;                  // λ* with the configured demands only
  std::optional<ZCart> tree;                   // the Z-CART tree the probe agent keeps [000 §3.3.1]
  std::vector<FactorSplit> factor_splits;      // its splits on derived attributes, over the factors
  std::vector<FactorLeaf> factor_leaves;       // and its leaves, where a tree has such splits
  // Once something was measured: which learned model answers whatif's λ*, and why; and the
  // recalibrated network's λ* at the sample when it has a recalibration.
  std::optional<LearnedModel> learned;
  std::optional<double> recalibrated_peak;
};

// The model of `config` at the sample `set` names, with the calibrations and Z-CART tree stored at
// `store_path`; InputError without a [model] or for a bad sample, before the store is opened.
ModelView show_model(const Config& config, const std::string& store_path, const std::string& set);

enum class CalibrationMethod { kStages, kUtilization };
// "stages" or "utilization"; InputError otherwise.
CalibrationMethod parse_calibration_method(std::string_view text);
std::string_view method_name(CalibrationMethod method);

struct CalibrationRequest {
  std::string set;
  std::optional<double> rate;         // default: 25% of the configured model's λ_max
  std::optional<double> runlength_s;  // default: ~2000 requests, at most 60 s, at least [peak] runlength_s
  CalibrationMethod method = CalibrationMethod::kStages;
};

struct CalibrationResult {
  Sample sample;
  double rate = 0;
  double runlength_s = 0;
  double mean_ms = 0;                      // the trial's mean response time
  std::vector<CalibratedDemand> measured;  // stored as the testbed's calibrations
};

// Runs one low-load trial on the real refserver testbed (InputError for a simulated one, before
// the store at `store_path` is opened) and stores the demands it measured.
CalibrationResult calibrate_model(const Config& config, const std::string& store_path,
                                  const CalibrationRequest& request, std::ostream& log);

}  // namespace wb
