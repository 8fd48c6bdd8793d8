#include "rsm/design.hpp"

#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "rsm/information_matrix.hpp"

namespace wb {

Design evaluate_design(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms,
                       const std::vector<Eigen::Index>& points) {
  if (points.empty()) throw InputError("design: no points");
  for (Eigen::Index p : points) {
    if (p < 0 || p >= candidates.rows()) {
      throw InputError(fmt::format("design: point {} is not one of the {} candidates", p, candidates.rows()));
    }
  }
  const Eigen::MatrixXd f = model_matrix(terms, candidates);
  Eigen::MatrixXd z(static_cast<Eigen::Index>(points.size()), f.cols());
  for (std::size_t i = 0; i < points.size(); ++i) z.row(static_cast<Eigen::Index>(i)) = f.row(points[i]);

  Design design;
  design.points = points;
  const double n = static_cast<double>(points.size());
  const double k = static_cast<double>(f.cols());
  const double log_det = log_det_gram(z);
  if (!std::isfinite(log_det)) {
    design.log_det = -std::numeric_limits<double>::infinity();
    return design;
  }
  // det(Z'Z / N) = det(Z'Z) / N^k.
  design.log_det = log_det - k * std::log(n);
  design.d = std::exp(design.log_det / k);
  // x' M^-1 x with M = Z'Z / N is N x'(Z'Z)^-1 x.
  const double max_variance = n * variance_function(z, f).maxCoeff();
  design.g_efficiency = k / max_variance;
  design.d_efficiency_bound = std::exp(1.0 - 1.0 / design.g_efficiency);
  return design;
}

Design augment(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms,
               const std::vector<Eigen::Index>& measured, int add, int starts, std::uint64_t seed) {
  if (add < 0) throw InputError(fmt::format("augment: cannot add {} points", add));
  return fedorov(candidates, terms, static_cast<int>(measured.size()) + add, starts, seed, measured);
}

std::uint64_t count_subsets(std::uint64_t n, std::uint64_t k) {
  if (k > n) return 0;
  if (k > n - k) k = n - k;
  std::uint64_t c = 1;
  for (std::uint64_t i = 1; i <= k; ++i) {
    // c * (n - k + i) / i is exact at every step: c is C(n - k + i - 1, i - 1).
    const std::uint64_t num = n - k + i;
    if (c > std::numeric_limits<std::uint64_t>::max() / num) {
      return std::numeric_limits<std::uint64_t>::max();
    }
    c = c * num / i;
  }
  return c;
}

namespace detail {

Eigen::MatrixXd checked_candidate_matrix(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms,
                                         int n_points, const std::vector<Eigen::Index>& required) {
  const auto k = static_cast<Eigen::Index>(terms.size());
  if (n_points < k) {
    throw InputError(fmt::format("design: {} points cannot estimate a model of {} terms", n_points, k));
  }
  if (n_points > candidates.rows()) {
    throw InputError(
        fmt::format("design: {} distinct points asked of only {} candidates", n_points, candidates.rows()));
  }
  if (static_cast<int>(required.size()) > n_points) {
    throw InputError(
        fmt::format("design: {} required points exceed the design size {}", required.size(), n_points));
  }
  std::set<Eigen::Index> seen;
  for (Eigen::Index r : required) {
    if (r < 0 || r >= candidates.rows()) {
      throw InputError(
          fmt::format("design: required point {} is not one of the {} candidates", r, candidates.rows()));
    }
    if (!seen.insert(r).second) {
      throw InputError(fmt::format("design: required point {} is listed twice", r));
    }
  }
  Eigen::MatrixXd f = model_matrix(terms, candidates);
  const Eigen::Index rank = column_rank(f);
  if (rank < k) {
    throw InputError(
        fmt::format("design: the candidates determine only {} of the {} model terms (too few levels for "
                    "this model?)",
                    rank, k));
  }
  return f;
}

std::vector<Eigen::Index> free_rows(Eigen::Index n_rows, const std::vector<Eigen::Index>& required) {
  std::vector<char> is_required(static_cast<std::size_t>(n_rows), 0);
  for (Eigen::Index r : required) is_required[static_cast<std::size_t>(r)] = 1;
  std::vector<Eigen::Index> pool;
  for (Eigen::Index j = 0; j < n_rows; ++j) {
    if (!is_required[static_cast<std::size_t>(j)]) pool.push_back(j);
  }
  return pool;
}

}  // namespace detail

}  // namespace wb
