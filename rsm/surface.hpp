#pragma once
// A fitted response surface in natural units [003 §4]: λ* over factors such as disks and threads,
// bundling the factor names, codings, model terms and least-squares fit. Points are in natural units,
// coefficients for the coded factors (and the transformed response, if any); predictions, errors and
// MAPEs in natural units. Immutable: the same inputs give the same fit; safe to share for reading.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "rsm/coding.hpp"
#include "rsm/fit.hpp"
#include "rsm/model_terms.hpp"
#include "rsm/response.hpp"

namespace wb {

// The expectation a surface is anchored to: λ* at a point in natural units (> 0).
using Anchor = std::function<double(const Eigen::RowVectorXd& natural_point)>;

class Surface {
 public:
  // Fits y at `natural_points` (one row per measured sample, columns in factor order). InputError if
  // the counts disagree, as model_terms(), code_points() or fit_surface() (too few or degenerate points),
  // or as to_response() (y <= 0 on the log or reciprocal scale).
  // With an anchor the polynomial fits the deviation g(y) - g(anchor(x)) and predicts
  // g^-1(poly(x) + g(anchor(x))): the surface keeps the expectation's shape and learns what it gets
  // wrong (on the log scale, log(measured / expected)). InputError if the anchor is not a positive
  // rate at a fitted point.
  Surface(std::vector<std::string> factor_names, std::vector<Coding> codings, ModelKind kind,
          const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y,
          ResponseScale response = ResponseScale::kIdentity, Anchor anchor = {});

  // Value and standard errors at one point in natural units (Prediction in fit.hpp); on a transformed
  // response, g^-1(x'b) with delta-method errors. Points outside the coded region are extrapolations:
  // the caller decides whether to allow them.
  Prediction predict(const Eigen::RowVectorXd& natural_point) const;
  // Values only, at every row of `natural_points`.
  Eigen::VectorXd predict_values(const Eigen::MatrixXd& natural_points) const;

  // Leave-one-out MAPE (percent) over the fitted samples, each LOO prediction mapped back to
  // natural units; nullopt for a saturated design.
  std::optional<double> loo_mape() const;
  // The leave-one-out predictions themselves, in natural units; nullopt as loo_mape().
  std::optional<Eigen::VectorXd> loo_predictions() const;
  // MAPE (percent) at samples that were measured but not fitted.
  double holdout_mape(const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y) const;

  const std::vector<std::string>& factor_names() const { return factor_names_; }
  const std::vector<Coding>& codings() const { return codings_; }
  ModelKind kind() const { return kind_; }
  ResponseScale response() const { return response_; }
  bool anchored() const { return static_cast<bool>(anchor_); }
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
  Anchor anchor_;
  Eigen::VectorXd offsets_;  // g(anchor) at the fitted points; zero without an anchor
  Fit fit_;

  double offset_at(const Eigen::RowVectorXd& natural_point) const;
};

}  // namespace wb
