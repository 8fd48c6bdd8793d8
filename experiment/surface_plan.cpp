#include "experiment/surface_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "rsm/candidates.hpp"

namespace wb {

Coding coding_for_levels(const std::vector<double>& levels) {
  auto [lo, hi] = std::minmax_element(levels.begin(), levels.end());
  if (*lo > 0 && *hi / *lo >= 10) return Coding::from_levels(levels, CodingScale::kLog);
  return Coding::from_levels(levels, CodingScale::kLinear);
}

Coding factor_coding(const Factor& f, const std::string& coding) {
  if (!f.numeric) return Coding::categorical(f.levels);
  if (coding == "auto") return coding_for_levels(f.numeric_levels);
  try {
    return Coding::from_levels(f.numeric_levels, parse_coding_scale(coding));
  } catch (const InputError& e) {
    throw InputError(fmt::format("--coding: {} (factor '{}')", e.what(), f.name));
  }
}

SurfacePlan plan_surface(const Config& config, const Sample& base, const SurfacePlanOptions& o) {
  SurfacePlan plan;
  if (o.factors.empty()) throw InputError("--factors: name at least one factor");
  std::set<std::string> seen;
  std::vector<std::vector<double>> levels;
  for (const std::string& name : o.factors) {
    const Factor* f = config.factor(name);
    if (f == nullptr)
      throw InputError(fmt::format("--factors: {} declares no factor '{}'", config.file(), name));
    if (!seen.insert(name).second)
      throw InputError(fmt::format("--factors: factor '{}' is named twice", name));
    if (f->levels.size() < 2) {
      throw InputError(fmt::format("--factors: factor '{}' has fewer than two levels", name));
    }
    plan.factors.push_back(name);
    plan.codings.push_back(factor_coding(*f, o.coding));
    levels.push_back(f->axis_levels());
  }
  plan.model = o.model;
  plan.response = o.response;
  plan.coding = o.coding;
  plan.select = o.select;
  plan.terms = model_terms(o.model, plan.factors, plan.codings);
  plan.candidates = full_factorial(levels);
  plan.coded = code_points(plan.candidates, plan.codings);
  for (Eigen::Index r = 0; r < plan.candidates.rows(); ++r) {
    Sample s = base;
    for (std::size_t j = 0; j < plan.factors.size(); ++j) {
      const Factor* f = config.factor(plan.factors[j]);
      s.set(f->name, f->axis_text(plan.candidates(r, static_cast<Eigen::Index>(j))));
    }
    plan.samples.push_back(std::move(s));
  }

  const auto n_candidates = static_cast<int>(plan.candidates.rows());
  const auto k = static_cast<int>(plan.terms.size());
  std::vector<Eigen::Index> design;
  plan.kind = o.design;
  if (o.design == "full") {
    for (Eigen::Index r = 0; r < plan.candidates.rows(); ++r) design.push_back(r);
  } else if (o.design == "dopt") {
    int n = o.points > 0 ? o.points : std::min(k + 2, n_candidates);
    if (n < k || n > n_candidates) {
      throw InputError(
          fmt::format("--points: {} points cannot fit a {} surface over {} ({} terms) from {} "
                      "candidates; give {}..{}",
                      n, to_string(o.model), fmt::join(plan.factors, ","), k, n_candidates, k, n_candidates));
    }
    // [003 §5.3.2] "the best of 6, 8 and 10 samples out of a total of 32": Fedorov exchange with
    // many random starts (the candidate sets here are small).
    design = fedorov(plan.coded, plan.terms, n, 40, o.seed).points;
  } else {
    throw InputError(fmt::format("--design: '{}' is not a design; use full or dopt", o.design));
  }
  plan.figures = evaluate_design(plan.coded, plan.terms, design);
  plan.tour = nearest_neighbour_tour(plan.coded, design);
  return plan;
}

void surface_model_params(const SurfacePlan& plan, nlohmann::json& params) {
  if (plan.select) return;
  params["model"] = to_string(plan.model);
  if (plan.response != ResponseScale::kIdentity) params["response"] = to_string(plan.response);
  if (plan.coding != "auto") params["coding"] = plan.coding;
}

std::vector<Eigen::Index> nearest_neighbour_tour(const Eigen::MatrixXd& coded,
                                                 std::vector<Eigen::Index> rows) {
  std::sort(rows.begin(), rows.end());
  std::vector<Eigen::Index> tour;
  if (rows.empty()) return tour;
  auto nearest = [&](const Eigen::RowVectorXd& from) {
    std::size_t best = 0;
    double best_d = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      double d = (coded.row(rows[i]) - from).squaredNorm();
      if (d < best_d) best_d = d, best = i;
    }
    return best;
  };
  Eigen::RowVectorXd here = Eigen::RowVectorXd::Constant(coded.cols(), -1.0);
  while (!rows.empty()) {
    std::size_t i = nearest(here);
    tour.push_back(rows[i]);
    here = coded.row(rows[i]);
    rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return tour;
}

}  // namespace wb
