#pragma once
// Choosing a response surface's class from its data: every candidate class (polynomial, response
// scale, codings, anchored to the expectation or not) is fitted and ranked by its leave-one-out
// MAPE, inflated for the terms it spends against the points (docs/decisions.md#rsm-selection).
// Pure; thread-safe when the anchor is.
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "rsm/surface.hpp"

namespace wb {

// One class of surface: the polynomial over the coded factors, the scale it is fitted on, and
// whether it fits the deviation from an anchor (rsm/surface.hpp).
struct SurfaceClass {
  ModelKind kind = ModelKind::kQuadratic;
  ResponseScale response = ResponseScale::kIdentity;
  std::vector<Coding> codings;  // one per factor
  bool anchored = false;

  // "anchored log · linear in disks, log(threads)": what a report prints.
  std::string describe(const std::vector<std::string>& factor_names) const;
};

struct RankedClass {
  SurfaceClass cls;
  double cv_mape = 0;  // leave-one-out MAPE, percent
  double score = 0;    // cv_mape * (1 + terms / points): the ranking key
  int terms = 0;
};

// Every class that can be judged on these points, best first (ties keep the candidates' order).
// A class is left out when it has fewer than two residual degrees of freedom (its LOO error says
// little), when it cannot be fitted, when it is anchored and `anchor` is empty, or when a
// prediction at a row of `grid` (the points the surface will answer for; may be empty) is not a
// plausible rate: not positive and finite, or above twice the largest λ* measured (or expected,
// for an anchored class) — the mark of a reciprocal fit extrapolated across its pole.
std::vector<RankedClass> rank_classes(const std::vector<std::string>& factor_names,
                                      const std::vector<SurfaceClass>& candidates,
                                      const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y,
                                      const Anchor& anchor = {}, const Eigen::MatrixXd& grid = {});

// The penalty's inflation of a LOO error for k terms fitted to n points.
double selection_penalty(int terms, int points);

}  // namespace wb
