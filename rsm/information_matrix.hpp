#pragma once
// The information matrix Z'Z of a model matrix Z and what designs and fits need from it, computed
// from a column-pivoted QR of Z, so the conditioning is Z's, not its square's (raw threads^2 reaches
// 10^4). Pure functions; safe from any thread.
#include <Eigen/Dense>

namespace wb {

// Numerical column rank of z (Eigen's ColPivHouseholderQR with its default threshold).
Eigen::Index column_rank(const Eigen::MatrixXd& z);

// log det(Z'Z); -infinity if z has fewer rows than columns or is column-rank deficient.
double log_det_gram(const Eigen::MatrixXd& z);

// W (k x m) with W'W = F (Z'Z)^-1 F' for the m rows of f, i.e. column i of W is R^-T P' f_i.
// So x_i'(Z'Z)^-1 x_j = W.col(i).dot(W.col(j)). InputError if z is column-rank deficient or the
// widths differ.
Eigen::MatrixXd whiten_rows(const Eigen::MatrixXd& z, const Eigen::MatrixXd& f);

// x'(Z'Z)^-1 x for every row x of f (the unscaled prediction variance; for f = z, the leverages
// h_ii). Same requirements as whiten_rows.
Eigen::VectorXd variance_function(const Eigen::MatrixXd& z, const Eigen::MatrixXd& f);

// (Z'Z)^-1 (k x k). Same requirements as whiten_rows.
Eigen::MatrixXd inverse_gram(const Eigen::MatrixXd& z);

}  // namespace wb
