#include <cmath>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "rsm/candidates.hpp"
#include "rsm/coding.hpp"
#include "rsm/design.hpp"
#include "rsm/fit.hpp"

namespace {

// y = 1 + ... at x = 0, 1, 2, 3; worked by hand below.
struct LineCase {
  std::vector<wb::Term> terms = wb::model_terms(wb::ModelKind::kFirstOrder, {"x"});
  Eigen::MatrixXd x = (Eigen::MatrixXd(4, 1) << 0, 1, 2, 3).finished();
  Eigen::VectorXd y = (Eigen::VectorXd(4) << 1, 3, 2, 5).finished();
};

double quadratic(double a, double b) { return 3 + 2 * a - b + 0.5 * a * b + a * a - 2 * b * b; }

}  // namespace

TEST_CASE("simple linear regression matches the hand computation", "[rsm][fit]") {
  // xbar = 1.5, ybar = 2.75, Sxx = 5, Sxy = 5.5: slope 1.1, intercept 2.75 - 1.65 = 1.1.
  // Fitted 1.1 2.2 3.3 4.4, residuals -0.1 0.8 -1.3 0.6, SSE = 2.7, s^2 = 2.7 / 2 = 1.35,
  // SST = 8.75, R^2 = 1 - 2.7 / 8.75; leverages 1/4 + (x - 1.5)^2 / 5 = 0.7 0.3 0.3 0.7.
  const LineCase c;
  const wb::Fit f = wb::fit_surface(c.terms, c.x, c.y);
  CHECK(f.coefficients(0) == Approx(1.1));
  CHECK(f.coefficients(1) == Approx(1.1));
  CHECK(f.residuals(2) == Approx(-1.3));
  CHECK(f.dof == 2);
  CHECK(f.residual_variance == Approx(1.35));
  CHECK(f.r2 == Approx(1 - 2.7 / 8.75));
  CHECK(f.leverages(0) == Approx(0.7));
  CHECK(f.leverages(1) == Approx(0.3));
  CHECK(f.leverages(2) == Approx(0.3));
  CHECK(f.leverages(3) == Approx(0.7));
  // (X'X)^-1 = [[1/n + xbar^2/Sxx, -xbar/Sxx], [-xbar/Sxx, 1/Sxx]].
  CHECK(f.xtx_inverse(0, 0) == Approx(0.25 + 2.25 / 5));
  CHECK(f.xtx_inverse(0, 1) == Approx(-0.3));
  CHECK(f.xtx_inverse(1, 1) == Approx(0.2));
}

TEST_CASE("prediction standard errors match the textbook formulas", "[rsm][fit]") {
  // se of the mean at x0: s * sqrt(1/n + (x0 - xbar)^2 / Sxx); of a new observation: add 1.
  const LineCase c;
  const wb::Fit f = wb::fit_surface(c.terms, c.x, c.y);
  for (double x0 : {1.5, 3.0, -2.0, 10.0}) {
    INFO("x0 = " << x0);
    const double h = 0.25 + (x0 - 1.5) * (x0 - 1.5) / 5.0;
    const wb::Prediction p = wb::predict(f, Eigen::RowVectorXd::Constant(1, x0));
    CHECK(p.value == Approx(1.1 + 1.1 * x0));
    CHECK(p.standard_error == Approx(std::sqrt(1.35 * h)));
    CHECK(p.prediction_error == Approx(std::sqrt(1.35 * (1 + h))));
  }
  // The same through a bare model matrix.
  const wb::Fit g = wb::fit_model_matrix(wb::model_matrix(c.terms, c.x), c.y);
  CHECK(g.terms.empty());
  const wb::Prediction q = wb::predict_model_row(g, Eigen::RowVector2d(1, 3));
  CHECK(q.standard_error == Approx(std::sqrt(1.35 * 0.7)));
  CHECK_THROWS_AS(wb::predict(g, Eigen::RowVectorXd::Constant(1, 3)), wb::InputError);
  CHECK_THROWS_AS(wb::predict_model_row(g, Eigen::RowVector3d(1, 3, 4)), wb::InputError);
}

TEST_CASE("a known quadratic surface is recovered exactly from a D-optimal design", "[rsm][fit]") {
  const Eigen::MatrixXd c = wb::full_factorial({{-1, -0.5, 0, 0.5, 1}, {-1, -0.5, 0, 0.5, 1}});
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"a", "b"});
  for (int n : {6, 8, 10}) {
    INFO("N = " << n);
    const wb::Design d = wb::fedorov(c, terms, n, 20, 4);
    Eigen::MatrixXd pts(n, 2);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) {
      pts.row(i) = c.row(d.points[static_cast<std::size_t>(i)]);
      y(i) = quadratic(pts(i, 0), pts(i, 1));
    }
    const wb::Fit f = wb::fit_surface(terms, pts, y);
    Eigen::VectorXd expected(6);
    expected << 3, 2, -1, 0.5, 1, -2;
    CHECK((f.coefficients - expected).cwiseAbs().maxCoeff() < 1e-10);
    CHECK(f.r2 == Approx(1.0));
    for (Eigen::Index i = 0; i < c.rows(); ++i) {
      CHECK(wb::predict(f, c.row(i)).value == Approx(quadratic(c(i, 0), c(i, 1))).margin(1e-10));
    }
    if (n > 6) CHECK(f.residual_variance < 1e-20);
    if (n == 6) CHECK(std::isnan(f.residual_variance));  // saturated: no error estimate
  }
}

TEST_CASE("a quadratic in log-coded threads is recovered at every raw sample", "[rsm][fit]") {
  const Eigen::MatrixXd raw = wb::full_factorial({{1, 2, 3, 4}, {1, 2, 4, 8, 16, 32, 64, 100}});
  const std::vector<wb::Coding> codings{wb::Coding(1, 4), wb::Coding(1, 100, wb::CodingScale::kLog)};
  const Eigen::MatrixXd coded = wb::code_points(raw, codings);
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"disks", "threads"});
  const wb::Design d = wb::fedorov(coded, terms, 8, 20, 8);
  Eigen::MatrixXd pts(8, 2);
  Eigen::VectorXd y(8);
  for (int i = 0; i < 8; ++i) {
    pts.row(i) = coded.row(d.points[static_cast<std::size_t>(i)]);
    y(i) = 100 * quadratic(pts(i, 0), pts(i, 1)) + 1000;
  }
  const wb::Fit f = wb::fit_surface(terms, pts, y);
  const Eigen::VectorXd all = wb::predict_values(f, coded);
  for (Eigen::Index i = 0; i < raw.rows(); ++i) {
    const Eigen::RowVectorXd p = wb::code_points(raw.row(i), codings);
    CHECK(all(i) == Approx(100 * quadratic(p(0), p(1)) + 1000).epsilon(1e-10));
  }
}

TEST_CASE("fits that cannot determine every term are InputErrors", "[rsm][fit]") {
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"a", "b"});
  const Eigen::MatrixXd square = wb::full_factorial({{-1, 1}, {-1, 1}});
  CHECK_THROWS_AS(wb::fit_surface(terms, square, Eigen::VectorXd::Ones(4)), wb::InputError);
  const Eigen::MatrixXd nine = wb::full_factorial({{-1, 1, 1.5}, {-1, 1, 2}});
  CHECK_THROWS_AS(wb::fit_surface(terms, nine, Eigen::VectorXd::Ones(8)), wb::InputError);
}
