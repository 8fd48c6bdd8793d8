#pragma once
// How well a fitted surface predicts [003 §5.3.2, Table 4]: MAPE at held-out samples, or leave-one-out
// MAPE over the design points, by e_i/(1 − h_ii) or by n refits (equal up to rounding). With h_ii = 1
// (a saturated design) LOO is not available (nullopt), not zero. Pure functions; thread-safe.
#include <optional>
#include <vector>

#include <Eigen/Dense>

#include "rsm/fit.hpp"
#include "rsm/model_terms.hpp"

namespace wb {

// 100/n * sum |actual_i - predicted_i| / |actual_i|, in percent. InputError if the sizes differ,
// are zero, or an actual value is 0.
double mape(const Eigen::VectorXd& actual, const Eigen::VectorXd& predicted);

// y_i - (prediction of y_i from a fit without point i), for every point; nullopt if some point
// has leverage 1 (within 1e-9).
std::optional<Eigen::VectorXd> loo_residuals(const Fit& fit);

// The same by refitting without each point in turn; nullopt if a refit is rank deficient.
std::optional<Eigen::VectorXd> loo_residuals_by_refit(const std::vector<Term>& terms,
                                                      const Eigen::MatrixXd& points,
                                                      const Eigen::VectorXd& y);

// MAPE of the leave-one-out predictions of the fitted points; nullopt as loo_residuals().
std::optional<double> loo_mape(const Fit& fit);

// MAPE of the fit's predictions at points it was not fitted on (Table 4's measure: predict every
// other sample of the surface). InputError as mape() or predict_values().
double holdout_mape(const Fit& fit, const Eigen::MatrixXd& points, const Eigen::VectorXd& y);

}  // namespace wb
