#pragma once
// The expectation model and the store: calibrations read back, the expectation stored with each
// search, and how well past expectations matched what was measured [000 §2.1, §4.1.1].
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.hpp"
#include "experiment/expectation.hpp"
#include "store/store.hpp"

namespace wb {

// An expectation agrees with a measurement when |expected − measured| ≤ this × measured.
constexpr double kExpectationTolerance = 0.10;

// Every λ* answer's interval is a prediction interval at this level (docs/decisions.md#answer-intervals).
constexpr double kAnswerLevel = 0.90;
// Its prior: the spread a found λ* may have about the truth at the [peak] target (the accuracy's
// half-width over the target confidence's normal quantile), worth two observations.
SpreadPrior answer_prior(const Config& config);
// [value e^-h, value e^h] for the half-width h of log λ* (nullopt when h is not finite).
std::optional<std::pair<double, double>> log_interval(double value, double h);

std::vector<CalibratedDemand> load_calibrations(store::Store& store, const Config& config);

// The centers of an open solution as JSON: [{name, pool, servers, demand_ms, utilization,
// response_ms}] (response_ms null when saturated).
nlohmann::json centers_json(const OpenResult& r);

// Computes the expectation for `sample` and stores it with search `search_id`. Does nothing when
// the config has no [model]. A model that cannot be solved for this sample is reported on `log`
// and stores nothing: the search result stands without it. Returns whether one was stored.
bool record_expectation(store::Store& store, const Config& config, const Sample& sample,
                        std::int64_t search_id, std::ostream& log);

// One stored search next to its expectation.
struct MeasuredVsExpected {
  store::SearchRecord search;
  std::optional<store::Store::ExpectationRow> expectation;
  // The model's error (expected − measured) / measured, when both λ* exist and are finite.
  std::optional<double> gap;
};
std::vector<MeasuredVsExpected> measured_vs_expected(store::Store& store, const std::string& testbed);
// A found search whose λ* and stored expectation are both finite rates > 0: what Z-CART and the
// learned models learn from.
bool learnable(const MeasuredVsExpected& r);

// Fidelity of the expectation model on one testbed: the fraction of measured samples (a sample
// measured twice counts once, at the geometric mean of its gaps) whose measured λ* lay within
// kExpectationTolerance of the stored expectation; nullopt when n = 0.
struct Fidelity {
  std::optional<double> value;
  int n = 0;              // distinct samples
  double log_gap_ss = 0;  // Σ log(measured / expected)² over them: the data of answer intervals
};
Fidelity expectation_fidelity(const std::vector<MeasuredVsExpected>& rows);

// What `workbench report` shows of a testbed: every stored search with the expectation stored with
// it, the model's fidelity, and every mismatch (of λ* and of fixed-rate runs' response times).
struct TestbedReport {
  std::string store_path;
  std::vector<MeasuredVsExpected> searches;
  Fidelity fidelity;
  std::vector<store::Store::MismatchRow> mismatches;
};
// Sweeps dead controllers' leases first, so a search whose controller died shows as interrupted,
// not running; their lines go to `log`.
TestbedReport testbed_report(const Config& config, const std::string& store_path, std::ostream& log);

}  // namespace wb
