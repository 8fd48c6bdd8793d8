#pragma once
// Least-squares fit of a response surface [003 §4] and prediction with standard errors, through
// Eigen's column-pivoted Householder QR of the model matrix, never the normal equations.
// Value types and pure functions; safe from any thread.
#include <vector>

#include <Eigen/Dense>

#include "rsm/model_terms.hpp"

namespace wb {

struct Fit {
  std::vector<Term> terms;       // empty when fitted from a bare model matrix
  Eigen::VectorXd coefficients;  // one per term, in term order
  Eigen::MatrixXd x;             // the model matrix that was fitted (n x k)
  Eigen::VectorXd observed;      // y (n)
  Eigen::VectorXd fitted;        // X b
  Eigen::VectorXd residuals;     // y - X b
  Eigen::VectorXd leverages;     // h_ii = x_i'(X'X)^-1 x_i, the diagonal of the hat matrix
  Eigen::MatrixXd xtx_inverse;   // (X'X)^-1 (k x k)
  double r2 = 0;                 // 1 - SSE/SST; NaN if all y are equal
  Eigen::Index dof = 0;          // residual degrees of freedom n - k
  double residual_variance = 0;  // s^2 = SSE / (n - k); NaN if n == k (a saturated design)
};

// Fits y = X b for X = model_matrix(terms, points). InputError if sizes disagree or if X does not
// have full column rank (fewer points than terms, or points that cannot separate the terms).
Fit fit_surface(const std::vector<Term>& terms, const Eigen::MatrixXd& points, const Eigen::VectorXd& y);

// The same for a caller-built model matrix; the result has no terms.
Fit fit_model_matrix(const Eigen::MatrixXd& x, const Eigen::VectorXd& y);

struct Prediction {
  double value = 0;             // x'b
  double standard_error = 0;    // of the fitted mean: s * sqrt(x'(X'X)^-1 x); NaN if s is NaN
  double prediction_error = 0;  // of a new observation: s * sqrt(1 + x'(X'X)^-1 x)
};

// Prediction at one point (factor values, in the same coding as the fitted points).
// InputError if the fit has no terms or the point has the wrong number of factors.
Prediction predict(const Fit& fit, const Eigen::RowVectorXd& point);

// Prediction for one row of a model matrix (length k).
Prediction predict_model_row(const Fit& fit, const Eigen::RowVectorXd& row);

// Predicted values (no errors) at every row of `points`.
Eigen::VectorXd predict_values(const Fit& fit, const Eigen::MatrixXd& points);

}  // namespace wb
