#pragma once
// Polynomial model terms of a response surface [003 §4]:
//   y = b0 + sum_i b_i F_i + sum_{i<j} b_ij F_i F_j + sum_i b_ii F_i^2
// A Term is a monomial in the factors; a model is an ordered list of terms; the model matrix has
// one row per point and one column per term. The factors are columns of a points matrix, in the
// order of the names given to model_terms().
//
// Value types and pure functions; safe to use from any thread.
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

namespace wb {

enum class ModelKind {
  kFirstOrder,    // 1, F_i
  kInteractions,  // 1, F_i, F_i*F_j (i < j)
  kQuadratic,     // 1, F_i, F_i*F_j (i < j), F_i^2
  kCubic,         // the quadratic terms, then F_i^3, F_i^2*F_j (i != j), F_i*F_j*F_k (i < j < k)
};

// "linear" | "interactions" | "quadratic" | "cubic"; InputError otherwise. to_string gives them back.
ModelKind parse_model_kind(std::string_view text);
const char* to_string(ModelKind kind);

// One monomial: prod_j x_j^powers[j]. powers.size() is the number of factors.
struct Term {
  std::string name;         // "1", "disks", "disks*threads", "disks^2", "disks^2*threads"
  std::vector<int> powers;  // all zero for the intercept

  bool operator==(const Term&) const = default;
};

// The terms of `kind` over the named factors, in the order intercept, linear terms (factor
// order), interactions (i<j, lexicographic), squares (factor order), and for kCubic: cubes
// (factor order), F_i^2*F_j (i != j, lexicographic in (i, j)), F_i*F_j*F_k (i<j<k, lexicographic).
// For n factors that is 1 + n, 1 + n + n(n-1)/2, 1 + 2n + n(n-1)/2 and (n+1)(n+2)(n+3)/6 terms
// (10 for two factors; a cube needs at least 4 levels of its factor). InputError if names is empty, a name is
// empty or repeated.
std::vector<Term> model_terms(ModelKind kind, const std::vector<std::string>& factor_names);

// Just the names of the terms, in order (for reports).
std::vector<std::string> term_names(const std::vector<Term>& terms);

// Value of every term at one point (a row vector of length terms.size()). InputError if the point
// has a different number of coordinates than the terms have factors.
Eigen::RowVectorXd model_row(const std::vector<Term>& terms, const Eigen::RowVectorXd& point);

// Model matrix: row i is model_row(terms, points.row(i)). InputError as for model_row, or if
// terms is empty.
Eigen::MatrixXd model_matrix(const std::vector<Term>& terms, const Eigen::MatrixXd& points);

}  // namespace wb
