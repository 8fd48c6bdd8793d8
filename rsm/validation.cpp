#include "rsm/validation.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "rsm/information_matrix.hpp"

namespace wb {

namespace {
// 1 - h_ii below this: the point determines its own prediction (a saturated design).
constexpr double kUnitLeverage = 1e-9;
}  // namespace

double mape(const Eigen::VectorXd& actual, const Eigen::VectorXd& predicted) {
  if (actual.size() != predicted.size() || actual.size() == 0) {
    throw InputError(fmt::format("MAPE: {} actual and {} predicted values", actual.size(), predicted.size()));
  }
  double sum = 0;
  for (Eigen::Index i = 0; i < actual.size(); ++i) {
    if (actual(i) == 0) throw InputError(fmt::format("MAPE: actual value {} is zero", i));
    sum += std::abs(actual(i) - predicted(i)) / std::abs(actual(i));
  }
  return 100.0 * sum / static_cast<double>(actual.size());
}

std::optional<Eigen::VectorXd> loo_residuals(const Fit& fit) {
  Eigen::VectorXd out(fit.residuals.size());
  for (Eigen::Index i = 0; i < out.size(); ++i) {
    const double free = 1.0 - fit.leverages(i);
    if (free < kUnitLeverage) return std::nullopt;
    out(i) = fit.residuals(i) / free;
  }
  return out;
}

std::optional<Eigen::VectorXd> loo_residuals_by_refit(const std::vector<Term>& terms,
                                                      const Eigen::MatrixXd& points,
                                                      const Eigen::VectorXd& y) {
  const Eigen::Index n = points.rows();
  if (y.size() != n) {
    throw InputError(fmt::format("LOO: {} points but {} observations", n, y.size()));
  }
  Eigen::VectorXd out(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::MatrixXd rest(n - 1, points.cols());
    Eigen::VectorXd rest_y(n - 1);
    for (Eigen::Index r = 0, o = 0; r < n; ++r) {
      if (r == i) continue;
      rest.row(o) = points.row(r);
      rest_y(o++) = y(r);
    }
    const Eigen::MatrixXd x = model_matrix(terms, rest);
    if (x.rows() < x.cols() || column_rank(x) < x.cols()) return std::nullopt;
    const Fit f = fit_model_matrix(x, rest_y);
    out(i) = y(i) - model_row(terms, points.row(i)).dot(f.coefficients);
  }
  return out;
}

std::optional<double> loo_mape(const Fit& fit) {
  const auto e = loo_residuals(fit);
  if (!e) return std::nullopt;
  return mape(fit.observed, fit.observed - *e);
}

double holdout_mape(const Fit& fit, const Eigen::MatrixXd& points, const Eigen::VectorXd& y) {
  return mape(y, predict_values(fit, points));
}

}  // namespace wb
