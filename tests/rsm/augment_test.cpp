#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "rsm/candidates.hpp"
#include "rsm/coding.hpp"
#include "rsm/design.hpp"
#include "rsm/information_matrix.hpp"

using Points = std::vector<Eigen::Index>;

namespace {

Eigen::MatrixXd paper_candidates_log_coded() {
  const Eigen::MatrixXd raw = wb::full_factorial({{1, 2, 3, 4}, {1, 2, 4, 8, 16, 32, 64, 100}});
  return wb::code_points(raw, {wb::Coding(1, 4), wb::Coding(1, 100, wb::CodingScale::kLog)});
}

}  // namespace

TEST_CASE("augmenting by one point beats every other single-point addition", "[rsm][augment]") {
  const Eigen::MatrixXd c = paper_candidates_log_coded();
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"disks", "threads"});
  // A measured design that is deliberately lopsided (not D-optimal), but nonsingular.
  const Points measured{0, 3, 9, 14, 20, 27};
  REQUIRE(wb::evaluate_design(c, terms, measured).d > 0);

  const wb::Design next = wb::augment(c, terms, measured, 1, 10, 3);
  REQUIRE(next.points.size() == 7);
  CHECK(Points(next.points.begin(), next.points.begin() + 6) == measured);
  const Eigen::Index added = next.points[6];
  CHECK(std::set<Eigen::Index>(measured.begin(), measured.end()).count(added) == 0);

  int others = 0;
  for (Eigen::Index j = 0; j < c.rows(); ++j) {
    if (std::find(measured.begin(), measured.end(), j) != measured.end()) continue;
    Points alt = measured;
    alt.push_back(j);
    CHECK(next.log_det >= wb::evaluate_design(c, terms, alt).log_det - 1e-12);
    ++others;
  }
  CHECK(others == 26);

  // Adding x multiplies det(Z'Z) by 1 + x'(Z'Z)^-1 x, so the added point has the largest
  // prediction variance under the measured design.
  const Eigen::MatrixXd f = wb::model_matrix(terms, c);
  Eigen::MatrixXd z(6, f.cols());
  for (int i = 0; i < 6; ++i) z.row(i) = f.row(measured[static_cast<std::size_t>(i)]);
  const Eigen::VectorXd v = wb::variance_function(z, f);
  CHECK(v(added) == Approx(v.maxCoeff()));
}

TEST_CASE("augmenting by several points matches exhaustive search with the measured points fixed",
          "[rsm][augment]") {
  const Eigen::MatrixXd c = paper_candidates_log_coded();
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"disks", "threads"});
  const Points measured{0, 3, 9, 14, 20, 27};
  for (int add : {2, 3, 4}) {
    INFO("add " << add);
    const wb::Design aug = wb::augment(c, terms, measured, add, 30, 11);
    const wb::Design best = wb::exhaustive(c, terms, 6 + add, measured);
    CHECK(aug.log_det == Approx(best.log_det).margin(1e-9));
    CHECK(aug.points.size() == static_cast<std::size_t>(6 + add));
  }
}

TEST_CASE("augmentation can start from too few measured points", "[rsm][augment]") {
  const Eigen::MatrixXd c = paper_candidates_log_coded();
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"disks", "threads"});
  const Points measured{5, 6};  // two points: a singular design on its own
  const wb::Design aug = wb::augment(c, terms, measured, 6, 30, 2);
  CHECK(aug.d > 0);
  CHECK(aug.log_det == Approx(wb::exhaustive(c, terms, 8, measured).log_det).margin(1e-9));
  CHECK_THROWS_AS(wb::augment(c, terms, measured, -1, 5, 1), wb::InputError);
  // Nothing to add: the measured design is returned as it is.
  const Points six{0, 3, 9, 14, 20, 27};
  CHECK(wb::augment(c, terms, six, 0, 5, 1).points == six);
}
