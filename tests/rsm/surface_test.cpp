#include <cmath>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "rsm/candidates.hpp"
#include "rsm/design.hpp"
#include "rsm/surface.hpp"
#include "rsm/validation.hpp"
#include "tests/rsm/paper_levels.hpp"

namespace {

using wb::test::kDisks;
using wb::test::kThreads;

std::vector<wb::Coding> paper_codings() {
  return {wb::Coding::from_levels(kDisks), wb::Coding::from_levels(kThreads, wb::CodingScale::kLog)};
}

// A peak rate that is exactly quadratic in (disks coded linearly, threads coded on a log scale).
double exact_peak(double disks, double threads) {
  const double d = (2 * disks - 5) / 3;
  const double t = (2 * std::log(threads) - std::log(100.0)) / std::log(100.0);
  return 800 + 300 * d + 150 * t + 40 * d * t - 20 * d * d - 90 * t * t;
}

// A saturating one (more disks help until the threads run out): not a quadratic.
double saturating_peak(double disks, double threads) {
  return 1000 * std::min(disks * 0.9, 4 * (1 - std::exp(-threads / 12.0)));
}

struct Measured {
  Eigen::MatrixXd points;
  Eigen::VectorXd y;
};

Measured measure(const Eigen::MatrixXd& candidates, const std::vector<Eigen::Index>& idx,
                 double (*peak)(double, double)) {
  Measured m{Eigen::MatrixXd(static_cast<Eigen::Index>(idx.size()), 2),
             Eigen::VectorXd(static_cast<Eigen::Index>(idx.size()))};
  for (std::size_t i = 0; i < idx.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    m.points.row(r) = candidates.row(idx[i]);
    m.y(r) = peak(m.points(r, 0), m.points(r, 1));
  }
  return m;
}

// `peak` at every row of `points`.
Eigen::VectorXd peaks_at(const Eigen::MatrixXd& points, double (*peak)(double, double)) {
  Eigen::VectorXd y(points.rows());
  for (Eigen::Index i = 0; i < points.rows(); ++i) y(i) = peak(points(i, 0), points(i, 1));
  return y;
}

// The quadratic surface in disks and threads fitted to `peak` measured at the `n_points` of a
// D-optimal design (20 starts, seed 1) over the candidates `raw`.
wb::Surface fit_quadratic(const Eigen::MatrixXd& raw, int n_points, double (*peak)(double, double)) {
  const auto codings = paper_codings();
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"disks", "threads"});
  const wb::Design d = wb::fedorov(wb::code_points(raw, codings), terms, n_points, 20, 1);
  const Measured m = measure(raw, d.points, peak);
  return wb::Surface({"disks", "threads"}, codings, wb::ModelKind::kQuadratic, m.points, m.y);
}

}  // namespace

TEST_CASE("a surface fitted in coded units predicts in natural units", "[rsm][surface]") {
  const Eigen::MatrixXd raw = wb::full_factorial({kDisks, kThreads});
  const wb::Surface s = fit_quadratic(raw, 8, exact_peak);
  CHECK(wb::term_names(s.fit().terms) ==
        wb::term_names(wb::model_terms(wb::ModelKind::kQuadratic, {"disks", "threads"})));
  CHECK(s.fit().coefficients(0) == Approx(800));  // value at the centre of the coded region
  CHECK(s.fit().coefficients(5) == Approx(-90));
  for (Eigen::Index i = 0; i < raw.rows(); ++i) {
    CHECK(s.predict(raw.row(i)).value == Approx(exact_peak(raw(i, 0), raw(i, 1))));
  }
  // An unmeasured configuration between the levels (disks 2.5, threads 48).
  CHECK(s.predict(Eigen::RowVector2d(2.5, 48)).value == Approx(exact_peak(2.5, 48)));
  REQUIRE(s.loo_mape());
  CHECK(*s.loo_mape() < 1e-9);
  CHECK(s.holdout_mape(raw, peaks_at(raw, exact_peak)) < 1e-9);
}

TEST_CASE("surface errors on a surface that is not quadratic are reported, not hidden", "[rsm][surface]") {
  const Eigen::MatrixXd raw = wb::full_factorial({kDisks, kThreads});
  const wb::Surface s = fit_quadratic(raw, 10, saturating_peak);

  const Eigen::VectorXd all_y = peaks_at(raw, saturating_peak);
  const double holdout = s.holdout_mape(raw, all_y);
  CHECK(holdout > 1.0);  // a quadratic cannot follow min(): a real error, in percent
  CHECK(holdout == Approx(wb::mape(all_y, s.predict_values(raw))));
  REQUIRE(s.loo_mape());
  CHECK(*s.loo_mape() > 0);
  const wb::Prediction p = s.predict(Eigen::RowVector2d(3, 16));
  CHECK(p.standard_error > 0);
  CHECK(p.prediction_error > p.standard_error);
}

TEST_CASE("surface inputs must agree", "[rsm][surface]") {
  const Eigen::MatrixXd pts = wb::full_factorial({kDisks, kThreads});
  const Eigen::VectorXd y = Eigen::VectorXd::Ones(pts.rows());
  CHECK_THROWS_AS(wb::Surface({"disks"}, paper_codings(), wb::ModelKind::kQuadratic, pts, y), wb::InputError);
  CHECK_THROWS_AS(wb::Surface({"disks", "threads"}, paper_codings(), wb::ModelKind::kQuadratic, pts,
                              Eigen::VectorXd::Ones(3)),
                  wb::InputError);
}
