#include "rsm/selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "rsm/validation.hpp"

namespace wb {

namespace {

std::string coded_name(const std::string& factor, CodingScale scale) {
  switch (scale) {
    case CodingScale::kLinear: return factor;
    case CodingScale::kLog: return "log(" + factor + ")";
    case CodingScale::kInverse: return "1/" + factor;
    case CodingScale::kCategorical: return "per " + factor;
  }
  return factor;
}

// See rank_classes().
bool plausible(const Surface& s, const Eigen::MatrixXd& grid, const Eigen::VectorXd& y,
               const Anchor& anchor) {
  if (grid.rows() == 0) return true;
  const Eigen::VectorXd p = s.predict_values(grid);
  double cap = y.maxCoeff();
  for (Eigen::Index i = 0; anchor && i < grid.rows(); ++i) cap = std::max(cap, anchor(grid.row(i)));
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    if (!std::isfinite(p(i)) || p(i) <= 0 || p(i) > 2 * cap) return false;
  }
  return true;
}

}  // namespace

std::string SurfaceClass::describe(const std::vector<std::string>& factor_names) const {
  std::string vars;
  for (std::size_t i = 0; i < factor_names.size() && i < codings.size(); ++i)
    vars += (i ? ", " : "") + coded_name(factor_names[i], codings[i].scale());
  const char* scale = to_string(response);
  if (anchored)
    return kind == ModelKind::kConstant
               ? fmt::format("anchored {} (a constant deviation from the expectation)", scale)
               : fmt::format("anchored {} · {} in {}", scale, to_string(kind), vars);
  return fmt::format("{} · {} in {}", scale, to_string(kind), vars);
}

double selection_penalty(int terms, int points) { return 1.0 + static_cast<double>(terms) / points; }

std::vector<RankedClass> rank_classes(const std::vector<std::string>& factor_names,
                                      const std::vector<SurfaceClass>& candidates,
                                      const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y,
                                      const Anchor& anchor, const Eigen::MatrixXd& grid) {
  const auto n = static_cast<int>(y.size());
  std::vector<RankedClass> ranked;
  for (const SurfaceClass& c : candidates) {
    if (c.anchored && !anchor) continue;
    const auto k = static_cast<int>(model_terms(c.kind, factor_names, c.codings).size());
    if (n - k < 2) continue;
    try {
      Surface s(factor_names, c.codings, c.kind, natural_points, y, c.response,
                c.anchored ? anchor : Anchor{});
      std::optional<double> cv = s.loo_mape();
      if (!cv || !std::isfinite(*cv) || !plausible(s, grid, y, c.anchored ? anchor : Anchor{})) continue;
      ranked.push_back({c, *cv, *cv * selection_penalty(k, n), k});
    } catch (const InputError&) {
      continue;  // degenerate on these points, or y not on the scale's domain
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedClass& a, const RankedClass& b) { return a.score < b.score; });
  return ranked;
}

}  // namespace wb
