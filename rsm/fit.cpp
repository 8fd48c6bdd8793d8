#include "rsm/fit.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "rsm/information_matrix.hpp"

namespace wb {

Fit fit_model_matrix(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  if (x.rows() != y.size()) {
    throw InputError(fmt::format("fit: {} points but {} observations", x.rows(), y.size()));
  }
  if (x.cols() == 0) throw InputError("fit: no terms");
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(x);
  if (x.rows() < x.cols() || qr.rank() < x.cols()) {
    throw InputError(fmt::format("fit: {} points determine only {} of the {} terms", x.rows(),
                                 std::min<Eigen::Index>(qr.rank(), x.rows()), x.cols()));
  }
  Fit f;
  f.x = x;
  f.observed = y;
  f.coefficients = qr.solve(y);
  f.fitted = x * f.coefficients;
  f.residuals = y - f.fitted;
  f.xtx_inverse = inverse_gram(x);
  f.leverages = variance_function(x, x);

  const double sse = f.residuals.squaredNorm();
  const double sst = (y.array() - y.mean()).square().sum();
  f.r2 = sst > 0 ? 1.0 - sse / sst : std::numeric_limits<double>::quiet_NaN();
  f.dof = x.rows() - x.cols();
  f.residual_variance =
      f.dof > 0 ? sse / static_cast<double>(f.dof) : std::numeric_limits<double>::quiet_NaN();
  return f;
}

Fit fit_surface(const std::vector<Term>& terms, const Eigen::MatrixXd& points, const Eigen::VectorXd& y) {
  Fit f = fit_model_matrix(model_matrix(terms, points), y);
  f.terms = terms;
  return f;
}

Prediction predict_model_row(const Fit& fit, const Eigen::RowVectorXd& row) {
  if (row.size() != fit.coefficients.size()) {
    throw InputError(
        fmt::format("predict: {} values for a model of {} terms", row.size(), fit.coefficients.size()));
  }
  Prediction p;
  p.value = row.dot(fit.coefficients);
  const double h = row * fit.xtx_inverse * row.transpose();
  p.standard_error = std::sqrt(fit.residual_variance * h);
  p.prediction_error = std::sqrt(fit.residual_variance * (1.0 + h));
  return p;
}

Prediction predict(const Fit& fit, const Eigen::RowVectorXd& point) {
  if (fit.terms.empty()) throw InputError("predict: the fit has no model terms (use predict_model_row)");
  return predict_model_row(fit, model_row(fit.terms, point));
}

Eigen::VectorXd predict_values(const Fit& fit, const Eigen::MatrixXd& points) {
  if (fit.terms.empty()) throw InputError("predict: the fit has no model terms");
  return model_matrix(fit.terms, points) * fit.coefficients;
}

}  // namespace wb
