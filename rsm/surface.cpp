#include "rsm/surface.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "rsm/validation.hpp"

namespace wb {

Surface::Surface(std::vector<std::string> factor_names, std::vector<Coding> codings, ModelKind kind,
                 const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y)
    : factor_names_(std::move(factor_names)), codings_(std::move(codings)), kind_(kind) {
  if (factor_names_.size() != codings_.size()) {
    throw InputError(
        fmt::format("surface: {} factors but {} codings", factor_names_.size(), codings_.size()));
  }
  fit_ = fit_surface(model_terms(kind_, factor_names_), code_points(natural_points, codings_), y);
}

Prediction Surface::predict(const Eigen::RowVectorXd& natural_point) const {
  return wb::predict(fit_, code_points(natural_point, codings_));
}

Eigen::VectorXd Surface::predict_values(const Eigen::MatrixXd& natural_points) const {
  return wb::predict_values(fit_, code_points(natural_points, codings_));
}

std::optional<double> Surface::loo_mape() const { return wb::loo_mape(fit_); }

double Surface::holdout_mape(const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y) const {
  return wb::mape(y, predict_values(natural_points));
}

}  // namespace wb
