#pragma once
// The fitted-surface answer of `workbench whatif` [003 §4]: λ* from the latest finished map-surface of
// this testbed, when the sample lies inside the region it mapped (the base sample's levels of the other
// factors, each surface factor within the measured range: no extrapolation).
#include <optional>
#include <string>

#include "core/config.hpp"
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

// The answer of the finished surface of this testbed that covers `sample` with the lowest
// leave-one-out error, or nullopt when none covers it (or none can be fitted from what it
// measured). Reads the store only.
std::optional<SurfaceAnswer> surface_answer(store::Store& store, const Config& config, const Sample& sample);

}  // namespace wb
