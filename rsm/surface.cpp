#include "rsm/surface.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "rsm/validation.hpp"

namespace wb {

Surface::Surface(std::vector<std::string> factor_names, std::vector<Coding> codings, ModelKind kind,
                 const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y, ResponseScale response,
                 Anchor anchor)
    : factor_names_(std::move(factor_names)),
      codings_(std::move(codings)),
      kind_(kind),
      response_(response),
      observed_(y),
      anchor_(std::move(anchor)) {
  if (factor_names_.size() != codings_.size()) {
    throw InputError(
        fmt::format("surface: {} factors but {} codings", factor_names_.size(), codings_.size()));
  }
  offsets_ = Eigen::VectorXd::Zero(y.size());
  if (anchor_ && natural_points.rows() != y.size())
    throw InputError(fmt::format("surface: {} points but {} values", natural_points.rows(), y.size()));
  for (Eigen::Index i = 0; anchor_ && i < natural_points.rows(); ++i)
    offsets_(i) = offset_at(natural_points.row(i));
  fit_ = fit_surface(model_terms(kind_, factor_names_, codings_), code_points(natural_points, codings_),
                     to_response(response_, y) - offsets_);
}

double Surface::offset_at(const Eigen::RowVectorXd& natural_point) const {
  if (!anchor_) return 0;
  const double e = anchor_(natural_point);
  if (!(e > 0) || !std::isfinite(e)) throw InputError(fmt::format("surface: the anchor is {} at a point", e));
  return to_response(response_, e);
}

Prediction Surface::predict(const Eigen::RowVectorXd& natural_point) const {
  const Prediction z = wb::predict(fit_, code_points(natural_point, codings_));
  const double at = z.value + offset_at(natural_point);
  // Delta method: first-order propagation of the errors through g^-1 at the fitted value.
  const double slope = response_slope(response_, at);
  return {from_response(response_, at), slope * z.standard_error, slope * z.prediction_error};
}

Eigen::VectorXd Surface::predict_values(const Eigen::MatrixXd& natural_points) const {
  Eigen::VectorXd z = wb::predict_values(fit_, code_points(natural_points, codings_));
  for (Eigen::Index i = 0; anchor_ && i < z.size(); ++i) z(i) += offset_at(natural_points.row(i));
  return from_response(response_, z);
}

std::optional<Eigen::VectorXd> Surface::loo_predictions() const {
  const auto e = loo_residuals(fit_);
  if (!e) return std::nullopt;
  // LOO prediction of point i on the fitted scale is z_i - e_i (plus its anchor's offset).
  return from_response(response_, fit_.observed - *e + offsets_);
}

std::optional<double> Surface::loo_mape() const {
  const auto p = loo_predictions();
  if (!p) return std::nullopt;
  return mape(observed_, *p);
}

double Surface::holdout_mape(const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y) const {
  return wb::mape(y, predict_values(natural_points));
}

double Surface::r2() const {
  const Eigen::VectorXd fitted = from_response(response_, fit_.fitted + offsets_);
  const double sse = (observed_ - fitted).squaredNorm();
  const double sst = (observed_.array() - observed_.mean()).square().sum();
  return sst > 0 ? 1.0 - sse / sst : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace wb
