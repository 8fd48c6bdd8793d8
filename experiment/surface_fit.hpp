#pragma once
// Fitting a map-surface's measured λ* [003 §4]: one fixed class (--model with --response and
// --coding), or the class the data choose (--model auto, rsm/selection.hpp) among polynomial,
// operational-law (reciprocal on inverse codings) and, with a [model], anchored classes that fit
// the deviation from the expectation. map-surface and whatif fit through here, so both answer
// with the same surface.
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "experiment/expectation.hpp"
#include "rsm/selection.hpp"
#include "store/store.hpp"

namespace wb {

struct SurfaceSpec {
  bool select = true;  // --model auto
  ModelKind model = ModelKind::kQuadratic;
  ResponseScale response = ResponseScale::kIdentity;
  std::string coding = "auto";  // "auto" (coding_for_levels) | "linear" | "log" | "inverse"
};

struct SurfaceFit {
  std::optional<Surface> surface;  // nullopt: nothing could be fitted (error says why)
  std::string error;
  std::string description;               // the class, as SurfaceClass::describe
  std::optional<double> cv_mape;         // its leave-one-out MAPE, percent
  std::optional<RankedClass> runner_up;  // --model auto: the next class in the ranking
  std::string runner_up_description;
  int classes = 0;  // --model auto: how many classes were ranked
};

// λ* of the config's [model] at a point of `factors` (the base sample's other levels), with the
// stored calibrations; empty when the config has no [model]. InputError where it has no answer.
// With `cache`, answers are read from and written to that store (expected_peaks), keyed by
// expectation_inputs_key: the store must outlive the anchor.
Anchor expectation_anchor(const Config& config, const Sample& base, const std::vector<std::string>& factors,
                          const std::vector<CalibratedDemand>& calibrations, store::Store* cache = nullptr);

// Solves the expectation at each row of `points` (axis values of `factors`, the base's other levels)
// that the cache lacks, on every core, and stores the answers, so that an anchor with this cache
// finds them. Points without an answer are left to the anchor (which names the error).
void warm_expectation_cache(store::Store& cache, const Config& config, const Sample& base,
                            const std::vector<std::string>& factors, const Eigen::MatrixXd& points,
                            const std::vector<CalibratedDemand>& calibrations);

// A hash of everything expect_peak reads besides the sample: the whole config text and the
// calibrations. Equal keys give equal answers (expect_peak is a pure function of them).
std::string expectation_inputs_key(const Config& config, const std::vector<CalibratedDemand>& calibrations);

// The candidate classes over these factors (their levels fix the codings; a categorical factor
// enters by indicators): anchored ones only with an anchor; no two with the same terms.
std::vector<SurfaceClass> candidate_classes(const std::vector<const Factor*>& factors, bool anchored);

// Fits the measured λ* `y` at `natural_points` (columns in `factors` order, as Factor::axis_value)
// as `spec` says.
SurfaceFit fit_measured(const std::vector<const Factor*>& factors, const SurfaceSpec& spec,
                        const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y,
                        const Anchor& anchor);

}  // namespace wb
