#include "rsm/surface.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "rsm/validation.hpp"

namespace wb {

Surface::Surface(std::vector<std::string> factor_names, std::vector<Coding> codings, ModelKind kind,
                 const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y, ResponseScale response)
    : factor_names_(std::move(factor_names)),
      codings_(std::move(codings)),
      kind_(kind),
      response_(response),
      observed_(y) {
  if (factor_names_.size() != codings_.size()) {
    throw InputError(
        fmt::format("surface: {} factors but {} codings", factor_names_.size(), codings_.size()));
  }
  fit_ = fit_surface(model_terms(kind_, factor_names_), code_points(natural_points, codings_),
                     to_response(response_, y));
}

Prediction Surface::predict(const Eigen::RowVectorXd& natural_point) const {
  const Prediction z = wb::predict(fit_, code_points(natural_point, codings_));
  // Delta method: first-order propagation of the errors through g^-1 at the fitted value.
  const double slope = response_slope(response_, z.value);
  return {from_response(response_, z.value), slope * z.standard_error, slope * z.prediction_error};
}

Eigen::VectorXd Surface::predict_values(const Eigen::MatrixXd& natural_points) const {
  return from_response(response_, wb::predict_values(fit_, code_points(natural_points, codings_)));
}

std::optional<double> Surface::loo_mape() const {
  const auto e = loo_residuals(fit_);
  if (!e) return std::nullopt;
  // LOO prediction of point i on the fitted scale is z_i - e_i; compare it in natural units.
  return mape(observed_, from_response(response_, fit_.observed - *e));
}

double Surface::holdout_mape(const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y) const {
  return wb::mape(y, predict_values(natural_points));
}

double Surface::r2() const {
  const Eigen::VectorXd fitted = from_response(response_, fit_.fitted);
  const double sse = (observed_ - fitted).squaredNorm();
  const double sst = (observed_.array() - observed_.mean()).square().sum();
  return sst > 0 ? 1.0 - sse / sst : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace wb
