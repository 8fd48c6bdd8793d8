#include "rsm/information_matrix.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

namespace {

using Qr = Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;

// R^-T (upper triangular R, k x k) applied after the column permutation: rows of the result are
// in pivoted order, which is harmless because only inner products W'W are used.
Eigen::MatrixXd r_inverse_transpose_times(const Qr& qr, const Eigen::MatrixXd& ft) {
  const Eigen::Index k = qr.cols();
  Eigen::MatrixXd permuted = qr.colsPermutation().transpose() * ft;  // P' F'
  const auto r = qr.matrixR().topLeftCorner(k, k).template triangularView<Eigen::Upper>();
  return r.transpose().solve(permuted);
}

Qr full_rank_qr(const Eigen::MatrixXd& z) {
  Qr qr(z);
  if (z.rows() < z.cols() || qr.rank() < z.cols()) {
    throw InputError(fmt::format("information matrix: the design determines only {} of {} terms",
                                 std::min<Eigen::Index>(qr.rank(), z.rows()), z.cols()));
  }
  return qr;
}

}  // namespace

Eigen::Index column_rank(const Eigen::MatrixXd& z) { return Qr(z).rank(); }

double log_det_gram(const Eigen::MatrixXd& z) {
  if (z.rows() < z.cols()) return -std::numeric_limits<double>::infinity();
  Qr qr(z);
  if (qr.rank() < z.cols()) return -std::numeric_limits<double>::infinity();
  // det(Z'Z) = det(R'R) = prod r_ii^2 (Q orthogonal, P a permutation).
  return 2.0 * qr.matrixR().diagonal().head(z.cols()).array().abs().log().sum();
}

Eigen::MatrixXd whiten_rows(const Eigen::MatrixXd& z, const Eigen::MatrixXd& f) {
  if (f.cols() != z.cols()) {
    throw InputError(
        fmt::format("information matrix: {} terms in the design, {} in the points", z.cols(), f.cols()));
  }
  return r_inverse_transpose_times(full_rank_qr(z), f.transpose());
}

Eigen::VectorXd variance_function(const Eigen::MatrixXd& z, const Eigen::MatrixXd& f) {
  return whiten_rows(z, f).colwise().squaredNorm().transpose();
}

Eigen::MatrixXd inverse_gram(const Eigen::MatrixXd& z) {
  const Eigen::MatrixXd w = whiten_rows(z, Eigen::MatrixXd::Identity(z.cols(), z.cols()));
  return w.transpose() * w;
}

}  // namespace wb
