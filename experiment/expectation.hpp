#pragma once
// The expectation model of a testbed: its [model] queue network, with demands calibrated from
// measurements where a calibration applies, solved for one sample [000 §2.1, 001 §III-C]. A
// calibration applies where the center's demand cannot differ (docs/decisions.md#calibration-scope).
// Pure functions of (config, calibrations, sample); units as in configs (ms, requests/s).
// Failure: InputError when the config has no [model], a sample's level has no attribute value
// (naming FILE:LINE:KEY), or the network evaluates to something unsolvable for this sample.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "models/closed_model.hpp"
#include "models/open_network.hpp"
#include "models/storage_whatif.hpp"

namespace wb {

struct CalibratedDemand {
  std::string center;
  Sample sample;                 // where it was measured
  double demand_ms = 0;          // per visit
  std::optional<double> visits;  // per request, when the measurement says
  std::string source;            // how it was measured, e.g. "refserver stats: disk stage"
  std::string measured_at;       // UTC time (from the store), may be empty
};

// The factors a center's demand and visits depend on, attributes traced back to their factor.
std::vector<std::string> center_factors(const QueueNetwork& net, const ServiceCenter& center);

// The latest calibration of `center` (last in `calibrations`) that applies to `sample`, or null.
const CalibratedDemand* applicable_calibration(const QueueNetwork& net, const ServiceCenter& center,
                                               const Sample& sample,
                                               const std::vector<CalibratedDemand>& calibrations);

// The network to solve for `sample`: visits resolved, calibrated centers' demand and visits
// replaced by constants. Also returns the sample with attribute values (what the solver needs).
struct EffectiveModel {
  QueueNetwork network;
  Sample sample;                         // the sample plus workload attributes
  std::vector<std::string> calibrated;   // centers whose demand came from a calibration
  std::optional<StorageAnswer> storage;  // [model.storage]'s answer for this sample
};

// [model.storage]'s answer for `sample` (its trace replayed at the sample's cache_mb), or none
// without [model.storage]. The trace is read once per process. Throws InputError naming the
// section for an unreadable trace or disk calibration, or a cache size that is not one.
std::optional<StorageAnswer> storage_answer(const QueueNetwork& net, const Sample& sample);
EffectiveModel effective_model(const Config& config, const Sample& sample,
                               const std::vector<CalibratedDemand>& calibrations);

// Raise it with every change that alters expect_peak's answers for the same inputs: stored answers
// (the expected_peaks cache, surface_fit.hpp) of another version are not used.
inline constexpr int kExpectationVersion = 1;

// What the expectation model says about one sample.
struct PeakExpectation {
  double peak_rate = 0;        // λ*: R(λ*) = R_sat
  double saturation_rate = 0;  // λ_max: some center saturates
  // The loads whose R(λ) lies in the peak-rate region [R_sat(1-s), R_sat(1+s)]: a search may
  // claim any of them as λ*, so a measured λ* agrees with the model when it falls in here.
  double region_low = 0, region_high = 0;
  OpenResult at;  // the network solved at `at.lambda` (λ*, or the asked rate)
  std::vector<std::string> calibrated;
  std::optional<StorageAnswer> storage;  // what [model.storage] gave the network
};

// λ* and λ_max for `sample`; `at` is solved at `rate` if given, else at λ* (at 0 if λ* is
// infinite or 0). `between_solves`, if given, is called before each network solve and may throw
// to abandon the computation (whatif passes check_interrupt).
PeakExpectation expect_peak(const Config& config, const Sample& sample,
                            const std::vector<CalibratedDemand>& calibrations,
                            std::optional<double> rate = std::nullopt,
                            const std::function<void()>& between_solves = {});

// A closed workload of `clients` with think time `think_ms` [001 §III-C.2]: solve_closed() of
// models/closed_network.hpp, exact where that takes bounded time, approximate beyond.
// Throughput per ms, times in ms.
ClosedResult expect_closed(const Config& config, const Sample& sample,
                           const std::vector<CalibratedDemand>& calibrations, int clients, double think_ms);

}  // namespace wb
