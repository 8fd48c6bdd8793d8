// Choosing a surface's class (rsm/selection.hpp): by leave-one-out error with a penalty for terms,
// anchored classes only with an anchor, and no class that predicts an impossible rate on the grid.
#include <catch2/catch.hpp>

#include <cmath>

#include "rsm/candidates.hpp"
#include "rsm/selection.hpp"

namespace {

const std::vector<std::string> kFactors{"disks", "threads"};
const std::vector<std::vector<double>> kLevels{{1, 2, 3, 4}, {1, 2, 4, 8, 16, 32, 64, 100}};

std::vector<wb::Coding> codings(wb::CodingScale scale) {
  return {wb::Coding::from_levels(kLevels[0], scale), wb::Coding::from_levels(kLevels[1], scale)};
}

// The operational-law bound λ* = 1 / (0.002 + 0.012/disks + 0.015/threads) on the full grid.
double bound(double d, double t) { return 1.0 / (0.002 + 0.012 / d + 0.015 / t); }

std::vector<wb::SurfaceClass> classes() {
  using wb::ModelKind, wb::ResponseScale, wb::CodingScale;
  return {{ModelKind::kQuadratic, ResponseScale::kIdentity, codings(CodingScale::kLinear), false},
          {ModelKind::kFirstOrder, ResponseScale::kReciprocal, codings(CodingScale::kInverse), false},
          {ModelKind::kQuadratic, ResponseScale::kReciprocal, codings(CodingScale::kInverse), false},
          {ModelKind::kConstant, ResponseScale::kLog, codings(CodingScale::kLinear), true}};
}

}  // namespace

TEST_CASE("the class that states the surface's law ranks first, and anchored ones need an anchor") {
  const Eigen::MatrixXd grid = wb::full_factorial(kLevels);
  Eigen::VectorXd y(grid.rows());
  for (Eigen::Index i = 0; i < grid.rows(); ++i) y(i) = bound(grid(i, 0), grid(i, 1));
  auto ranked = wb::rank_classes(kFactors, classes(), grid, y, {}, grid);
  REQUIRE(ranked.size() == 3);  // the anchored class is left out without an anchor
  CHECK(ranked[0].cls.response == wb::ResponseScale::kReciprocal);
  CHECK(ranked[0].cls.kind == wb::ModelKind::kFirstOrder);  // exact with 3 terms; the quadratic spends 6
  CHECK(ranked[0].cv_mape < 1e-8);
  CHECK(ranked[0].score == Approx(ranked[0].cv_mape * (1 + 3.0 / 32)).margin(1e-12));
  CHECK(ranked.back().cls.response == wb::ResponseScale::kIdentity);

  // A shape no polynomial class states, and an expectation that has it but is 10 % too high: a
  // constant deviation explains every point.
  auto shape = [](double d, double t) { return bound(d, t) * (1 + 0.3 * std::sin(t)); };
  wb::Anchor anchor = [&](const Eigen::RowVectorXd& x) { return 1.1 * shape(x(0), x(1)); };
  for (Eigen::Index i = 0; i < grid.rows(); ++i) y(i) = shape(grid(i, 0), grid(i, 1));
  auto anchored = wb::rank_classes(kFactors, classes(), grid, y, anchor, grid);
  REQUIRE(!anchored.empty());
  CHECK(anchored[0].cls.anchored);
  CHECK(anchored[0].cv_mape < 1e-8);
  wb::Surface s(kFactors, anchored[0].cls.codings, anchored[0].cls.kind, grid, y, anchored[0].cls.response,
                anchor);
  Eigen::RowVectorXd between(2);
  between << 2.5, 48;  // between the levels: the anchor carries the shape there
  CHECK(s.predict(between).value == Approx(shape(2.5, 48)).epsilon(1e-9));
}

TEST_CASE("a class that predicts a rate past its pole on the grid is not ranked") {
  // Six points where 1/λ* falls steeply: a reciprocal fit reaches 1/λ* <= 0 at the far corner.
  Eigen::MatrixXd pts(6, 2);
  pts << 1, 1, 2, 1, 1, 2, 2, 2, 3, 2, 2, 4;
  Eigen::VectorXd y(6);
  y << 10, 20, 20, 40, 60, 80;
  const Eigen::MatrixXd grid = wb::full_factorial(kLevels);
  std::vector<wb::SurfaceClass> one{
      {wb::ModelKind::kFirstOrder, wb::ResponseScale::kReciprocal, codings(wb::CodingScale::kLinear), false}};
  wb::Surface fit(kFactors, one[0].codings, one[0].kind, pts, y, one[0].response);
  const Eigen::VectorXd p = fit.predict_values(grid);
  REQUIRE(((p.array() <= 0) || (p.array() > 160)).any());  // the premise: it is implausible somewhere
  CHECK(wb::rank_classes(kFactors, one, pts, y, {}, grid).empty());
  CHECK(wb::rank_classes(kFactors, one, pts, y).size() == 1);  // without a grid it is judged by LOO alone
}
