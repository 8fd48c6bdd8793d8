#pragma once
// Polynomial model terms of a response surface [003 §4], y = b0 + Σ b_i F_i + Σ_{i<j} b_ij F_i F_j
// + Σ b_ii F_i²: a Term is a monomial, a model an ordered list of them; the model matrix has one row
// per point, one column per term. Value types and pure functions; safe from any thread.
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

#include "rsm/coding.hpp"

namespace wb {

enum class ModelKind {
  kConstant,      // 1 (an anchored surface's ratio to its expectation)
  kFirstOrder,    // 1, F_i
  kInteractions,  // 1, F_i, F_i*F_j (i < j)
  kQuadratic,     // 1, F_i, F_i*F_j (i < j), F_i^2
  kCubic,         // the quadratic terms, then F_i^3, F_i^2*F_j (i != j), F_i*F_j*F_k (i < j < k)
};

// "constant" | "linear" | "interactions" | "quadratic" | "cubic"; InputError otherwise. to_string gives them
// back.
ModelKind parse_model_kind(std::string_view text);
const char* to_string(ModelKind kind);

// One monomial: prod_j x_j^powers[j], times the indicators of categorical levels. powers.size() is
// the number of factors.
struct Term {
  std::string name;         // "1", "disks", "disks*threads", "disks^2", "disks^2*threads", "fs=xfs*disks"
  std::vector<int> powers;  // all zero for the intercept
  // Empty, or one entry per factor: k > 0 makes the term zero unless factor j's level index is k
  // (a categorical factor, coded as its index: rsm/coding.hpp).
  std::vector<int> indicator;

  bool operator==(const Term&) const = default;
};

// The terms of `kind` over the named factors: intercept, linear, interactions (i<j), squares, and for
// kCubic cubes, F_i²F_j (i != j) and F_iF_jF_k (i<j<k), each group in factor (lexicographic) order;
// 10 terms for two factors. InputError if names is empty, or a name is empty or repeated.
std::vector<Term> model_terms(ModelKind kind, const std::vector<std::string>& factor_names);

// The terms of `kind` when some factors are categorical (codings[j].categorical()): the polynomial
// over the numeric factors, then for each categorical factor one indicator per level but the
// first, and from kInteractions on, each indicator times every numeric factor and every other
// factor's indicators — each level shifts and tilts the surface; curvature is shared. Without a
// categorical factor, the same as model_terms(kind, factor_names). InputError as above, or if the
// counts differ.
std::vector<Term> model_terms(ModelKind kind, const std::vector<std::string>& factor_names,
                              const std::vector<Coding>& codings);

// Just the names of the terms, in order (for reports).
std::vector<std::string> term_names(const std::vector<Term>& terms);

// Value of every term at one point (a row vector of length terms.size()). InputError if the point
// has a different number of coordinates than the terms have factors.
Eigen::RowVectorXd model_row(const std::vector<Term>& terms, const Eigen::RowVectorXd& point);

// Model matrix: row i is model_row(terms, points.row(i)). InputError as for model_row, or if
// terms is empty.
Eigen::MatrixXd model_matrix(const std::vector<Term>& terms, const Eigen::MatrixXd& points);

}  // namespace wb
