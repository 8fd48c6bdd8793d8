#pragma once
// A fitted response surface in natural units [003 §4]: lambda* as a quadratic (or simpler)
// function of factors such as disks and threads. It bundles what a caller would otherwise keep in
// step by hand: the factor names, each factor's coding, the model terms over the coded factors,
// and the least-squares fit. Points go in and out in natural units (disks = 3, threads = 48);
// coefficients are for the coded factors (so the intercept is the value at the centre of the
// coded region), named by fit().terms. The fit may be on a transformed response (log λ*, 1/λ*;
// rsm/response.hpp): fit() and its coefficients are then on that scale, while predictions,
// their standard errors (delta method) and the MAPEs are in natural units.
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
#include "rsm/response.hpp"

namespace wb {

class Surface {
 public:
  // Fits y at `natural_points` (one row per measured sample, one column per factor, in the order
  // of factor_names and codings). InputError if the counts disagree, or as model_terms(),
  // code_points() and fit_surface() (e.g. too few or degenerate points for the model), or as
  // to_response() (a y <= 0 on the log or reciprocal scale).
  Surface(std::vector<std::string> factor_names, std::vector<Coding> codings, ModelKind kind,
          const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y,
          ResponseScale response = ResponseScale::kIdentity);

  // Value and standard errors at one point in natural units (see Prediction in fit.hpp). On a
  // transformed response the value is g^-1(x'b) and both errors are the delta-method ones,
  // |d g^-1/dz| times the errors on the fitted scale (rsm/response.hpp).
  // Points outside the coded region are extrapolations; the caller decides whether to allow them.
  Prediction predict(const Eigen::RowVectorXd& natural_point) const;
  // Values only, at every row of `natural_points`.
  Eigen::VectorXd predict_values(const Eigen::MatrixXd& natural_points) const;

  // Leave-one-out MAPE (percent) over the fitted samples, each LOO prediction mapped back to
  // natural units; nullopt for a saturated design.
  std::optional<double> loo_mape() const;
  // MAPE (percent) at samples that were measured but not fitted.
  double holdout_mape(const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y) const;

  const std::vector<std::string>& factor_names() const { return factor_names_; }
  const std::vector<Coding>& codings() const { return codings_; }
  ModelKind kind() const { return kind_; }
  ResponseScale response() const { return response_; }
  // The fit on the response scale (observed = g(y)).
  const Fit& fit() const { return fit_; }
  // The measured values in natural units, in the order they were given.
  const Eigen::VectorXd& observed() const { return observed_; }
  // 1 - SSE/SST of the fitted values in natural units (equals fit().r2 on the identity scale).
  double r2() const;

 private:
  std::vector<std::string> factor_names_;
  std::vector<Coding> codings_;
  ModelKind kind_;
  ResponseScale response_;
  Eigen::VectorXd observed_;
  Fit fit_;
};

}  // namespace wb
