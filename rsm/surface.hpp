#pragma once
// A fitted response surface in natural units [003 §4]: lambda* as a quadratic (or simpler)
// function of factors such as disks and threads. It bundles what a caller would otherwise keep in
// step by hand: the factor names, each factor's coding, the model terms over the coded factors,
// and the least-squares fit. Points go in and out in natural units (disks = 3, threads = 48);
// coefficients are for the coded factors (so the intercept is the value at the centre of the
// coded region), named by fit().terms.
//
// A Surface is an immutable value, rebuilt from the same inputs (e.g. measured samples read back
// from the store) it gives the same fit. Safe to share between threads for reading.
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "rsm/coding.hpp"
#include "rsm/fit.hpp"
#include "rsm/model_terms.hpp"

namespace wb {

class Surface {
 public:
  // Fits y at `natural_points` (one row per measured sample, one column per factor, in the order
  // of factor_names and codings). InputError if the counts disagree, or as model_terms(),
  // code_points() and fit_surface() (e.g. too few or degenerate points for the model).
  Surface(std::vector<std::string> factor_names, std::vector<Coding> codings, ModelKind kind,
          const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y);

  // Value and standard errors at one point in natural units (see Prediction in fit.hpp).
  // Points outside the coded region are extrapolations; the caller decides whether to allow them.
  Prediction predict(const Eigen::RowVectorXd& natural_point) const;
  // Values only, at every row of `natural_points`.
  Eigen::VectorXd predict_values(const Eigen::MatrixXd& natural_points) const;

  // Leave-one-out MAPE (percent) over the fitted samples; nullopt for a saturated design.
  std::optional<double> loo_mape() const;
  // MAPE (percent) at samples that were measured but not fitted.
  double holdout_mape(const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y) const;

  const std::vector<std::string>& factor_names() const { return factor_names_; }
  const std::vector<Coding>& codings() const { return codings_; }
  ModelKind kind() const { return kind_; }
  const Fit& fit() const { return fit_; }

 private:
  std::vector<std::string> factor_names_;
  std::vector<Coding> codings_;
  ModelKind kind_;
  Fit fit_;
};

}  // namespace wb
