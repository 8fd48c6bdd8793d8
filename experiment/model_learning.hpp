#pragma once
// Which learned model answers λ* where nobody measured (docs/decisions.md#recalibration): Z-CART on
// the expectation as configured [000 §3.3.1], the queue network recalibrated (one center's demand as
// a function of one factor solved from the measured λ*, or every center the SUT's stage times
// measure, each as a function of its own factor; models/demand_fit.hpp), or Z-CART on the
// recalibrated network. Each is scored by leave-one-out error over the distinct measured samples;
// the lowest answers.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.hpp"
#include "experiment/expectation.hpp"
#include "experiment/expectation_record.hpp"
#include "models/demand_fit.hpp"
#include "models/zcart.hpp"
#include "store/store.hpp"

namespace wb {

enum class LearnedForm { kZCart, kRecalibrated, kZCartOnRecalibrated };
// "zcart", "recalibrated", "zcart on recalibrated"
std::string_view learned_form_name(LearnedForm form);

// Below this many distinct measured samples nothing is recalibrated: leave-one-out needs a few.
constexpr std::size_t kMinRecalibrationSamples = 4;

struct HeldOutError {
  std::size_t n = 0;       // samples predicted, each by a fit without it
  double sum_sq = 0;       // Σ log(predicted / measured)²
  std::size_t within = 0;  // predicted within kExpectationTolerance of the measured λ*
  double rms() const;      // sqrt(sum_sq / n); +inf when n = 0
};

// Per sample (its key): the mean time per request of each stage its SUT reported (ms), over the
// trials of its found searches at or below their λ*.
using SampleStages = std::map<std::string, std::map<std::string, double>>;

struct LearnedModel {
  LearnedForm form = LearnedForm::kZCart;
  std::optional<Recalibration> recalibration;  // the one with the least held-out error, if any
  HeldOutError zcart, recalibrated, zcart_on_recalibrated;
  std::size_t samples = 0;  // distinct measured samples with an expectation
  std::string why;          // one line: what was compared and what won
};

// Chooses among the three from the found searches in `rows` (merged per sample, as Z-CART's
// observations are). `tree_options`: the Z-CART tree's (persisted_zcart_options). `between_solves`
// as for expect_peak (whatif passes check_interrupt). `stages`: the SUT's stage times where it
// reported them; a stage named like a non-pool center is that center's service time per request.
LearnedModel learn_model(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                         const std::vector<MeasuredVsExpected>& rows, const ZCartOptions& tree_options,
                         const std::function<void()>& between_solves = {}, const SampleStages& stages = {});

// The stage times of the learnable rows' samples, from their stored trials (none: an empty map).
SampleStages sample_stage_times(store::Store& store, const std::vector<MeasuredVsExpected>& rows);

// learn_model's result as the store keeps it, with the stage times stored with the rows' trials:
// learned again only when its inputs changed (the config file's text, the calibrations, the found
// searches, their expectations and stage times, the tree's options), else read back. Stores what it
// learns.
LearnedModel current_learned_model(store::Store& store, const Config& config,
                                   const std::vector<CalibratedDemand>& calibrations,
                                   const std::vector<MeasuredVsExpected>& rows,
                                   const ZCartOptions& tree_options,
                                   const std::function<void()>& between_solves = {});

// For readers (whatif and model show --json): the form that answers, why, each form's held-out RMS
// log error and the recalibration.
nlohmann::json learned_model_report(const LearnedModel& model);

// For the store: everything, exactly.
nlohmann::json learned_model_json(const LearnedModel& model);
// Error when `j` is not what learned_model_json writes.
LearnedModel learned_model_from_json(const nlohmann::json& j);

// λ* at `sample` of the model with `r` applied (calibrations as for expect_peak).
double recalibrated_peak(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                         const Recalibration& r, const Sample& sample);

// The Z-CART tree over the measured samples of `rows` with the recalibrated λ* as each one's
// expectation (the tree whatif predicts from when that form answers).
ZCart zcart_on_recalibrated(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                            const std::vector<MeasuredVsExpected>& rows, const Recalibration& r,
                            const ZCartOptions& tree_options);

}  // namespace wb
