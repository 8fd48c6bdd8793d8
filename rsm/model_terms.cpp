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
  terms.push_back({"1", std::vector<int>(n, 0), {}});
  if (kind == ModelKind::kConstant) return terms;
  for (std::size_t i = 0; i < n; ++i) {
    Term t{factor_names[i], std::vector<int>(n, 0), {}};
    t.powers[i] = 1;
    terms.push_back(std::move(t));
  }
  if (kind == ModelKind::kFirstOrder) return terms;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      Term t{factor_names[i] + "*" + factor_names[j], std::vector<int>(n, 0), {}};
      t.powers[i] = 1;
      t.powers[j] = 1;
      terms.push_back(std::move(t));
    }
  }
  if (kind == ModelKind::kInteractions) return terms;
  for (std::size_t i = 0; i < n; ++i) {
    Term t{factor_names[i] + "^2", std::vector<int>(n, 0), {}};
    t.powers[i] = 2;
    terms.push_back(std::move(t));
  }
  if (kind == ModelKind::kQuadratic) return terms;
  for (std::size_t i = 0; i < n; ++i) {
    Term t{factor_names[i] + "^3", std::vector<int>(n, 0), {}};
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
             std::vector<int>(n, 0),
             {}};
      t.powers[i] = 2;
      t.powers[j] = 1;
      terms.push_back(std::move(t));
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      for (std::size_t k = j + 1; k < n; ++k) {
        Term t{factor_names[i] + "*" + factor_names[j] + "*" + factor_names[k], std::vector<int>(n, 0), {}};
        t.powers[i] = 1;
        t.powers[j] = 1;
        t.powers[k] = 1;
        terms.push_back(std::move(t));
      }
    }
  }
  return terms;
}

std::vector<Term> model_terms(ModelKind kind, const std::vector<std::string>& factor_names,
                              const std::vector<Coding>& codings) {
  if (codings.size() != factor_names.size()) {
    throw InputError(
        fmt::format("model terms: {} factors but {} codings", factor_names.size(), codings.size()));
  }
  std::vector<std::size_t> numeric, categorical;
  for (std::size_t j = 0; j < codings.size(); ++j)
    (codings[j].categorical() ? categorical : numeric).push_back(j);
  if (categorical.empty()) return model_terms(kind, factor_names);
  const std::size_t n = factor_names.size();
  model_terms(ModelKind::kConstant, factor_names);  // the same checks of the names
  std::vector<Term> terms;
  if (numeric.empty()) {
    terms.push_back({"1", std::vector<int>(n, 0), {}});
  } else {
    std::vector<std::string> names;
    names.reserve(numeric.size());
    for (std::size_t j : numeric) names.push_back(factor_names[j]);
    for (Term t : model_terms(kind, names)) {
      std::vector<int> powers(n, 0);
      for (std::size_t i = 0; i < numeric.size(); ++i) powers[numeric[i]] = t.powers[i];
      terms.push_back({std::move(t.name), std::move(powers), {}});
    }
  }
  if (kind == ModelKind::kConstant) return terms;
  struct Indicator {
    std::size_t factor;
    int level;
    std::string name;
  };
  std::vector<Indicator> indicators;
  for (std::size_t c : categorical) {
    const auto& names = codings[c].categories();
    for (std::size_t k = 1; k < names.size(); ++k)
      indicators.push_back({c, static_cast<int>(k), factor_names[c] + "=" + names[k]});
  }
  auto indicator_term = [n](std::string name) {
    return Term{std::move(name), std::vector<int>(n, 0), std::vector<int>(n, 0)};
  };
  for (const Indicator& d : indicators) {
    Term t = indicator_term(d.name);
    t.indicator[d.factor] = d.level;
    terms.push_back(std::move(t));
  }
  if (kind == ModelKind::kFirstOrder) return terms;
  for (const Indicator& d : indicators) {
    for (std::size_t j : numeric) {
      Term t = indicator_term(d.name + "*" + factor_names[j]);
      t.indicator[d.factor] = d.level;
      t.powers[j] = 1;
      terms.push_back(std::move(t));
    }
  }
  for (std::size_t a = 0; a < indicators.size(); ++a) {
    for (std::size_t b = a + 1; b < indicators.size(); ++b) {
      if (indicators[a].factor == indicators[b].factor) continue;
      Term t = indicator_term(indicators[a].name + "*" + indicators[b].name);
      t.indicator[indicators[a].factor] = indicators[a].level;
      t.indicator[indicators[b].factor] = indicators[b].level;
      terms.push_back(std::move(t));
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
  for (std::size_t j = 0; j < t.indicator.size(); ++j) {
    if (t.indicator[j] > 0 && point(static_cast<Eigen::Index>(j)) != t.indicator[j]) return 0.0;
  }
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
