#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "rsm/model_terms.hpp"

using Names = std::vector<std::string>;

TEST_CASE("term lists of the three model kinds", "[rsm][terms]") {
  const Names f{"disks", "threads"};
  CHECK(wb::term_names(wb::model_terms(wb::ModelKind::kFirstOrder, f)) == Names{"1", "disks", "threads"});
  CHECK(wb::term_names(wb::model_terms(wb::ModelKind::kInteractions, f)) ==
        Names{"1", "disks", "threads", "disks*threads"});
  CHECK(wb::term_names(wb::model_terms(wb::ModelKind::kQuadratic, f)) ==
        Names{"1", "disks", "threads", "disks*threads", "disks^2", "threads^2"});

  const Names three{"a", "b", "c"};
  CHECK(wb::model_terms(wb::ModelKind::kFirstOrder, three).size() == 4);
  CHECK(wb::model_terms(wb::ModelKind::kInteractions, three).size() == 7);
  const auto q = wb::model_terms(wb::ModelKind::kQuadratic, three);
  CHECK(wb::term_names(q) == Names{"1", "a", "b", "c", "a*b", "a*c", "b*c", "a^2", "b^2", "c^2"});
  CHECK(q[5].powers == std::vector<int>{1, 0, 1});
  CHECK(q[8].powers == std::vector<int>{0, 2, 0});
}

TEST_CASE("model matrix columns are the term values", "[rsm][terms]") {
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"disks", "threads"});
  Eigen::MatrixXd points(3, 2);
  points << 2, 3, -1, 0.5, 0, -4;
  const Eigen::MatrixXd x = wb::model_matrix(terms, points);
  REQUIRE(x.rows() == 3);
  REQUIRE(x.cols() == 6);
  Eigen::MatrixXd expected(3, 6);
  expected << 1, 2, 3, 6, 4, 9,   //
      1, -1, 0.5, -0.5, 1, 0.25,  //
      1, 0, -4, 0, 0, 16;
  CHECK(x == expected);
  CHECK(wb::model_row(terms, points.row(1)) == expected.row(1));
}

TEST_CASE("model terms reject bad factor lists and widths", "[rsm][terms]") {
  CHECK_THROWS_AS(wb::model_terms(wb::ModelKind::kQuadratic, {}), wb::InputError);
  CHECK_THROWS_AS(wb::model_terms(wb::ModelKind::kQuadratic, {"a", "a"}), wb::InputError);
  CHECK_THROWS_AS(wb::model_terms(wb::ModelKind::kQuadratic, {"a", ""}), wb::InputError);
  const auto terms = wb::model_terms(wb::ModelKind::kFirstOrder, {"a", "b"});
  CHECK_THROWS_AS(wb::model_matrix(terms, Eigen::MatrixXd::Zero(2, 3)), wb::InputError);
  CHECK_THROWS_AS(wb::model_matrix({}, Eigen::MatrixXd::Zero(2, 2)), wb::InputError);
  CHECK(wb::parse_model_kind("quadratic") == wb::ModelKind::kQuadratic);
  CHECK(wb::parse_model_kind("interactions") == wb::ModelKind::kInteractions);
  CHECK(std::string(wb::to_string(wb::parse_model_kind("linear"))) == "linear");
  CHECK_THROWS_AS(wb::parse_model_kind("quartic"), wb::InputError);
}

TEST_CASE("a categorical factor enters by one indicator per level but the first", "[rsm][terms]") {
  // threads numeric, fs categorical with three levels (its column holds the level's index).
  const Names f{"threads", "fs"};
  const std::vector<wb::Coding> codings{wb::Coding(1, 100),
                                        wb::Coding::categorical({"ext4", "xfs", "btrfs"})};
  CHECK(wb::term_names(wb::model_terms(wb::ModelKind::kConstant, f, codings)) == Names{"1"});
  CHECK(wb::term_names(wb::model_terms(wb::ModelKind::kFirstOrder, f, codings)) ==
        Names{"1", "threads", "fs=xfs", "fs=btrfs"});
  // Each level shifts and tilts the surface; curvature is shared.
  const auto q = wb::model_terms(wb::ModelKind::kQuadratic, f, codings);
  CHECK(wb::term_names(q) ==
        Names{"1", "threads", "threads^2", "fs=xfs", "fs=btrfs", "fs=xfs*threads", "fs=btrfs*threads"});
  Eigen::MatrixXd points(3, 2);
  points << 0.5, 0, -1, 1, 2, 2;
  Eigen::MatrixXd expected(3, 7);
  expected << 1, 0.5, 0.25, 0, 0, 0, 0,  // ext4: the reference level
      1, -1, 1, 1, 0, -1, 0,             // xfs
      1, 2, 4, 0, 1, 0, 2;               // btrfs
  CHECK(wb::model_matrix(q, points) == expected);

  // Two categorical factors interact through their indicators' products.
  const Names two{"fs", "mix"};
  const std::vector<wb::Coding> cats{wb::Coding::categorical({"ext4", "xfs"}),
                                     wb::Coding::categorical({"read", "write"})};
  CHECK(wb::term_names(wb::model_terms(wb::ModelKind::kInteractions, two, cats)) ==
        Names{"1", "fs=xfs", "mix=write", "fs=xfs*mix=write"});
  // Without a categorical factor the terms are the plain polynomial's.
  CHECK(wb::model_terms(wb::ModelKind::kCubic, {"a", "b"}, {wb::Coding(0, 1), wb::Coding(0, 1)}) ==
        wb::model_terms(wb::ModelKind::kCubic, {"a", "b"}));
  CHECK_THROWS_AS(wb::model_terms(wb::ModelKind::kFirstOrder, f, {codings[0]}), wb::InputError);
  // A categorical coding keeps level indices and refuses anything else.
  CHECK(codings[1].code(2) == 2);
  CHECK_THROWS_AS(codings[1].code(1.5), wb::InputError);
  CHECK_THROWS_AS(codings[1].code(3), wb::InputError);
  CHECK_THROWS_AS(wb::Coding::categorical({"only"}), wb::InputError);
}
