#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/search_result.hpp"

namespace wb {

// The strawman's plan [003 §3.1, Alg. 1]: every load gets exactly `trials` trials of
// `runlength_s`, each load is judged only as below or above R_sat (its mean, or saturation), and
// λ* is the highest load below the first one above.
struct FixedPlan {
  int trials = 10;
  double runlength_s = 300;
};

// Chooses the next test load of a search from the loads tried so far [003 §3.3 Step 2]. A picker
// is stateful and serves one search; it never runs trials itself, and sees no clock, process,
// store or simulator: only the loads and their verdicts.
class LoadPicker {
 public:
  virtual ~LoadPicker() = default;
  // `history` holds every load tried so far, each with a verdict of kBelow or kAbove (the search
  // ends at a peak). Returns nullopt when the picker has nothing left to try (its bracket has
  // collapsed without a load in the peak-rate region, or, with a fixed plan, it is done).
  virtual std::optional<double> next(const std::vector<TestLoad>& history) = 0;
  // Set for the strawman: run_search then follows the plan instead of adapting trials and
  // runlength, and reports λ* when next() returns nullopt.
  virtual std::optional<FixedPlan> fixed_plan() const { return std::nullopt; }
};

// The picker names `workbench peak --policy` accepts, with one line on each.
std::vector<std::string> picker_names();
std::string picker_summary(const std::string& name);

// Makes the named picker, whose first load is `start_rate`; `seeded`: that is a nearby sample's peak
// [003 §3.7], so smaller first steps; `elasticity` > 0 (SeedChoice::elasticity) lets model-safe aim
// from its first load. Throws InputError for an unknown name.
std::unique_ptr<LoadPicker> make_picker(const std::string& name, const PeakConfig& peak, double start_rate,
                                        bool seeded = false, double elasticity = 0);

// One file per picker; make_picker dispatches to these.
std::unique_ptr<LoadPicker> make_binsearch_picker(const PeakConfig& peak, double start_rate);
std::unique_ptr<LoadPicker> make_linear_picker(const PeakConfig& peak, double start_rate, bool strawman);
std::unique_ptr<LoadPicker> make_model_guided_picker(const PeakConfig& peak, double start_rate);
std::unique_ptr<LoadPicker> make_model_safe_picker(const PeakConfig& peak, double start_rate, bool seeded,
                                                   double elasticity = 0);

}  // namespace wb
