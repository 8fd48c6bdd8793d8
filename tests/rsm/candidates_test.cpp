#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "rsm/candidates.hpp"

TEST_CASE("full factorial lists every combination, first factor fastest", "[rsm][candidates]") {
  const Eigen::MatrixXd c = wb::full_factorial({{1, 2}, {10, 20, 30}});
  Eigen::MatrixXd expected(6, 2);
  expected << 1, 10, 2, 10, 1, 20, 2, 20, 1, 30, 2, 30;
  CHECK(c == expected);

  const Eigen::MatrixXd paper = wb::full_factorial({{1, 2, 3, 4}, {1, 2, 4, 8, 16, 32, 64, 100}});
  CHECK(paper.rows() == 32);  // the 32 samples of [003 §5.3.2]
  CHECK(paper.row(31) == Eigen::RowVector2d(4, 100));
}

TEST_CASE("full factorial rejects empty and repeated levels", "[rsm][candidates]") {
  CHECK_THROWS_AS(wb::full_factorial({}), wb::InputError);
  CHECK_THROWS_AS(wb::full_factorial({{1, 2}, {}}), wb::InputError);
  CHECK_THROWS_AS(wb::full_factorial({{1, 2, 1}}), wb::InputError);
}

TEST_CASE("listed candidates are appended without duplicates", "[rsm][candidates]") {
  const Eigen::MatrixXd grid = wb::full_factorial({{1, 2}, {1, 2}});
  Eigen::MatrixXd extra(3, 2);
  extra << 2, 2, 1.5, 1.5, 1.5, 1.5;
  const Eigen::MatrixXd all = wb::append_candidates(grid, extra);
  REQUIRE(all.rows() == 5);
  CHECK(all.topRows(4) == grid);
  CHECK(all.row(4) == Eigen::RowVector2d(1.5, 1.5));
  CHECK(wb::find_candidate(all, Eigen::RowVector2d(2, 1)) == 1);
  CHECK(wb::find_candidate(all, Eigen::RowVector2d(3, 1)) == -1);
  // A user list alone (no grid) is also a candidate set, deduplicated.
  CHECK(wb::append_candidates(Eigen::MatrixXd(0, 0), extra).rows() == 2);
  CHECK_THROWS_AS(wb::append_candidates(grid, Eigen::MatrixXd::Zero(1, 3)), wb::InputError);
}
