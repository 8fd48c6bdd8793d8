#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "rsm/candidates.hpp"
#include "rsm/design.hpp"
#include "rsm/fit.hpp"
#include "rsm/validation.hpp"

TEST_CASE("LOO MAPE of a line fit matches the hand computation both ways", "[rsm][validation]") {
  // x = 0 1 2 3, y = 1 3 2 5. Refitting the line without each point by hand:
  //   without x=0: y = 4/3 + x      -> predicts 4/3  at 0, |1 - 4/3| / 1 = 1/3
  //   without x=1: y = 9/14 + 17/14 x -> 13/7 at 1, |3 - 13/7| / 3 = 8/21
  //   without x=2: y = 9/7 + 9/7 x    -> 27/7 at 2, |2 - 27/7| / 2 = 13/14
  //   without x=3: y = 3/2 + x/2      -> 3 at 3,    |5 - 3| / 5 = 2/5
  // MAPE = (1/3 + 8/21 + 13/14 + 2/5) / 4 = 429/840 = 51.07%.
  const auto terms = wb::model_terms(wb::ModelKind::kFirstOrder, {"x"});
  const Eigen::MatrixXd x = (Eigen::MatrixXd(4, 1) << 0, 1, 2, 3).finished();
  const Eigen::VectorXd y = (Eigen::VectorXd(4) << 1, 3, 2, 5).finished();
  const wb::Fit f = wb::fit_surface(terms, x, y);

  const auto by_hat = wb::loo_residuals(f);
  const auto by_refit = wb::loo_residuals_by_refit(terms, x, y);
  REQUIRE(by_hat);
  REQUIRE(by_refit);
  const Eigen::VectorXd expected = (Eigen::VectorXd(4) << -1.0 / 3, 8.0 / 7, -13.0 / 7, 2).finished();
  CHECK(by_hat->isApprox(expected, 1e-12));
  CHECK(by_refit->isApprox(expected, 1e-12));
  REQUIRE(wb::loo_mape(f));
  CHECK(*wb::loo_mape(f) == Approx(100.0 * 429.0 / 840.0));
}

TEST_CASE("LOO MAPE of the mean model matches the hand computation", "[rsm][validation]") {
  // Intercept only on y = 2 4 6 8: each LOO prediction is the mean of the other three
  // (6, 16/3, 14/3, 4): errors 2, 1/3, 2/9, 1/2 relative; MAPE = 27.5/36 = 76.39%.
  const std::vector<wb::Term> mean_only{{"1", {0}, {}}};
  const Eigen::MatrixXd x = (Eigen::MatrixXd(4, 1) << 0, 1, 2, 3).finished();
  const Eigen::VectorXd y = (Eigen::VectorXd(4) << 2, 4, 6, 8).finished();
  const wb::Fit f = wb::fit_surface(mean_only, x, y);
  REQUIRE(wb::loo_mape(f));
  CHECK(*wb::loo_mape(f) == Approx(100.0 * 27.5 / 36.0));
  const auto refit = wb::loo_residuals_by_refit(mean_only, x, y);
  REQUIRE(refit);
  CHECK(wb::mape(y, y - *refit) == Approx(100.0 * 27.5 / 36.0));
}

TEST_CASE("LOO agrees both ways on a noisy quadratic surface", "[rsm][validation]") {
  const Eigen::MatrixXd c = wb::full_factorial({{-1, 0, 1}, {-1, -0.3, 0.4, 1}});
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"a", "b"});
  Eigen::VectorXd y(c.rows());
  for (Eigen::Index i = 0; i < c.rows(); ++i) {
    // A deterministic "noise" so the fit is not exact.
    y(i) = 50 + 10 * c(i, 0) - 5 * c(i, 1) * c(i, 1) + ((i * 7) % 5 - 2) * 0.8;
  }
  const wb::Fit f = wb::fit_surface(terms, c, y);
  const auto by_hat = wb::loo_residuals(f);
  const auto by_refit = wb::loo_residuals_by_refit(terms, c, y);
  REQUIRE(by_hat);
  REQUIRE(by_refit);
  CHECK(by_hat->isApprox(*by_refit, 1e-9));
  CHECK(*wb::loo_mape(f) > 0);
}

TEST_CASE("LOO is not available for a saturated design", "[rsm][validation]") {
  // Six points, six quadratic terms: every leverage is 1.
  const Eigen::MatrixXd c = wb::full_factorial({{-1, 0, 1}, {-1, 0, 1}});
  const auto terms = wb::model_terms(wb::ModelKind::kQuadratic, {"a", "b"});
  const wb::Design d = wb::exhaustive(c, terms, 6);
  Eigen::MatrixXd six(6, 2);
  for (int i = 0; i < 6; ++i) six.row(i) = c.row(d.points[static_cast<std::size_t>(i)]);
  const wb::Fit f = wb::fit_surface(terms, six, Eigen::VectorXd::LinSpaced(6, 1, 6));
  CHECK(f.leverages.isApprox(Eigen::VectorXd::Ones(6), 1e-9));
  CHECK_FALSE(wb::loo_residuals(f));
  CHECK_FALSE(wb::loo_mape(f));
  CHECK_FALSE(wb::loo_residuals_by_refit(terms, six, Eigen::VectorXd::LinSpaced(6, 1, 6)));
}

TEST_CASE("hold-out MAPE compares predictions with measured values", "[rsm][validation]") {
  // The line y = 1.1 + 1.1 x (fitted to 0..3 above) predicts 6.6 at 5 and 12.1 at 10.
  const auto terms = wb::model_terms(wb::ModelKind::kFirstOrder, {"x"});
  const Eigen::MatrixXd x = (Eigen::MatrixXd(4, 1) << 0, 1, 2, 3).finished();
  const Eigen::VectorXd y = (Eigen::VectorXd(4) << 1, 3, 2, 5).finished();
  const wb::Fit f = wb::fit_surface(terms, x, y);
  const Eigen::MatrixXd held = (Eigen::MatrixXd(2, 1) << 5, 10).finished();
  const Eigen::VectorXd measured = (Eigen::VectorXd(2) << 6, 11).finished();
  // (|6 - 6.6| / 6 + |11 - 12.1| / 11) / 2 = (0.1 + 0.1) / 2 = 10%.
  CHECK(wb::holdout_mape(f, held, measured) == Approx(10.0));
  CHECK_THROWS_AS(wb::holdout_mape(f, held, Eigen::VectorXd::Zero(2)), wb::InputError);
  CHECK_THROWS_AS(wb::mape(Eigen::VectorXd::Ones(2), Eigen::VectorXd::Ones(3)), wb::InputError);
}
