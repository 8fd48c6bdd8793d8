#pragma once
// The fitted-surface answer of `workbench whatif` [003 §4]: λ* from the latest finished map-surface of
// this testbed, when the sample lies inside the region it mapped (the base sample's levels of the other
// factors, each surface factor within the measured range: no extrapolation).
#include <optional>
#include <string>

#include <Eigen/Dense>

#include "core/config.hpp"
#include "experiment/surface_fit.hpp"
#include "store/store.hpp"

namespace wb {

struct SurfaceAnswer {
  std::int64_t surface_id = 0;
  double value = 0;          // predicted λ*, requests/s
  double low = 0, high = 0;  // value ± 2 prediction standard errors (equal to value when unknown)
  // Fraction of the measured samples whose leave-one-out prediction (the surface refitted without
  // them) lay within kExpectationTolerance of their measured λ*; nullopt when no refit is possible.
  std::optional<double> fidelity;
  int n = 0;                // measured samples behind the fit
  std::string description;  // the fitted class (rsm/selection.hpp SurfaceClass::describe)
};

// A stored surface refitted as map-surface fitted it, from the samples whose search found λ*.
struct StoredSurfaceFit {
  std::int64_t surface_id = 0;
  std::vector<std::string> factors;
  std::vector<const Factor*> declared;         // the config's factors, in that order: they fix the codings
  Sample base;                                 // the levels of the factors outside the surface
  std::vector<Sample> samples;                 // the measured samples, in tour order
  std::vector<std::int64_t> search_ids;        // the search that measured each
  Eigen::MatrixXd points;                      // their axis values, a row per sample
  Eigen::VectorXd y;                           // their λ*
  SurfaceSpec spec;                            // params without "model" are --model auto's
  std::vector<CalibratedDemand> calibrations;  // the anchor's
  Anchor anchor;
  SurfaceFit fit;  // fit.surface is nullopt (fit.error says why) when the points cannot determine it
};

// nullopt when nothing of the surface was measured, or the config no longer declares its factors or
// levels, or a newer workbench wrote options this one cannot refit. Writes only the expectation cache
// (surface_fit.hpp expectation_anchor).
std::optional<StoredSurfaceFit> refit_stored_surface(store::Store& store, const Config& config,
                                                     const store::SurfaceRecord& rec);

// The answer of the finished surface of this testbed that covers `sample` with the lowest
// leave-one-out error, or nullopt when none covers it (or none can be fitted from what it
// measured). Writes only the expectation cache.
std::optional<SurfaceAnswer> surface_answer(store::Store& store, const Config& config, const Sample& sample);

}  // namespace wb
