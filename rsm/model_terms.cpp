#include "rsm/model_terms.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

ModelKind parse_model_kind(std::string_view text) {
  if (text == "constant") return ModelKind::kConstant;
  if (text == "linear") return ModelKind::kFirstOrder;
  if (text == "interactions") return ModelKind::kInteractions;
  if (text == "quadratic") return ModelKind::kQuadratic;
  if (text == "cubic") return ModelKind::kCubic;
  throw InputError(
      fmt::format("model '{}': expected constant, linear, interactions, quadratic or cubic", text));
}

const char* to_string(ModelKind kind) {
  switch (kind) {
    case ModelKind::kConstant: return "constant";
    case ModelKind::kFirstOrder: return "linear";
    case ModelKind::kInteractions: return "interactions";
    case ModelKind::kQuadratic: return "quadratic";
    case ModelKind::kCubic: return "cubic";
  }
  return "?";
}

std::vector<Term> model_terms(ModelKind kind, const std::vector<std::string>& factor_names) {
  const std::size_t n = factor_names.size();
  if (n == 0) throw InputError("model terms: no factors");
  std::set<std::string> seen;
  for (const auto& name : factor_names) {
    if (name.empty()) throw InputError("model terms: a factor has an empty name");
    if (!seen.insert(name).second) {
      throw InputError(fmt::format("model terms: factor '{}' is listed twice", name));
    }
  }

  std::vector<Term> terms;
  terms.push_back({"1", std::vector<int>(n, 0)});
  if (kind == ModelKind::kConstant) return terms;
  for (std::size_t i = 0; i < n; ++i) {
    Term t{factor_names[i], std::vector<int>(n, 0)};
    t.powers[i] = 1;
    terms.push_back(std::move(t));
  }
  if (kind == ModelKind::kFirstOrder) return terms;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      Term t{factor_names[i] + "*" + factor_names[j], std::vector<int>(n, 0)};
      t.powers[i] = 1;
      t.powers[j] = 1;
      terms.push_back(std::move(t));
    }
  }
  if (kind == ModelKind::kInteractions) return terms;
  for (std::size_t i = 0; i < n; ++i) {
    Term t{factor_names[i] + "^2", std::vector<int>(n, 0)};
    t.powers[i] = 2;
    terms.push_back(std::move(t));
  }
  if (kind == ModelKind::kQuadratic) return terms;
  for (std::size_t i = 0; i < n; ++i) {
    Term t{factor_names[i] + "^3", std::vector<int>(n, 0)};
    t.powers[i] = 3;
    terms.push_back(std::move(t));
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      // Named in factor order: disks^2*threads, disks*threads^2.
      const std::size_t a = std::min(i, j);
      const std::size_t b = std::max(i, j);
      Term t{factor_names[a] + (a == i ? "^2" : "") + "*" + factor_names[b] + (b == i ? "^2" : ""),
             std::vector<int>(n, 0)};
      t.powers[i] = 2;
      t.powers[j] = 1;
      terms.push_back(std::move(t));
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      for (std::size_t k = j + 1; k < n; ++k) {
        Term t{factor_names[i] + "*" + factor_names[j] + "*" + factor_names[k], std::vector<int>(n, 0)};
        t.powers[i] = 1;
        t.powers[j] = 1;
        t.powers[k] = 1;
        terms.push_back(std::move(t));
      }
    }
  }
  return terms;
}

std::vector<std::string> term_names(const std::vector<Term>& terms) {
  std::vector<std::string> names;
  names.reserve(terms.size());
  for (const auto& t : terms) names.push_back(t.name);
  return names;
}

namespace {

double term_value(const Term& t, const Eigen::RowVectorXd& point) {
  double v = 1.0;
  for (std::size_t j = 0; j < t.powers.size(); ++j) {
    for (int p = 0; p < t.powers[j]; ++p) v *= point(static_cast<Eigen::Index>(j));
  }
  return v;
}

void check_width(const std::vector<Term>& terms, Eigen::Index cols) {
  if (terms.empty()) throw InputError("model matrix: no terms");
  for (const auto& t : terms) {
    if (static_cast<Eigen::Index>(t.powers.size()) != cols) {
      throw InputError(fmt::format("model matrix: term '{}' is over {} factors but points have {}", t.name,
                                   t.powers.size(), cols));
    }
  }
}

}  // namespace

Eigen::RowVectorXd model_row(const std::vector<Term>& terms, const Eigen::RowVectorXd& point) {
  check_width(terms, point.size());
  Eigen::RowVectorXd row(static_cast<Eigen::Index>(terms.size()));
  for (std::size_t k = 0; k < terms.size(); ++k) {
    row(static_cast<Eigen::Index>(k)) = term_value(terms[k], point);
  }
  return row;
}

Eigen::MatrixXd model_matrix(const std::vector<Term>& terms, const Eigen::MatrixXd& points) {
  check_width(terms, points.cols());
  Eigen::MatrixXd x(points.rows(), static_cast<Eigen::Index>(terms.size()));
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    const Eigen::RowVectorXd p = points.row(i);
    for (std::size_t k = 0; k < terms.size(); ++k) {
      x(i, static_cast<Eigen::Index>(k)) = term_value(terms[k], p);
    }
  }
  return x;
}

}  // namespace wb
