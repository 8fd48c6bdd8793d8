// Transformed responses (log, reciprocal), inverse coding and cubic terms of a response surface.
#include <cmath>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "rsm/candidates.hpp"
#include "rsm/coding.hpp"
#include "rsm/model_terms.hpp"
#include "rsm/response.hpp"
#include "rsm/surface.hpp"
#include "rsm/validation.hpp"
#include "tests/rsm/paper_levels.hpp"

namespace {

using wb::test::kDisks;
using wb::test::kThreads;

}  // namespace

TEST_CASE("response scales parse, print and invert", "[rsm][response]") {
  for (const char* name : {"identity", "log", "reciprocal"}) {
    CHECK(std::string(wb::to_string(wb::parse_response_scale(name))) == name);
  }
  CHECK_THROWS_AS(wb::parse_response_scale("sqrt"), wb::InputError);
  for (auto scale : {wb::ResponseScale::kIdentity, wb::ResponseScale::kLog, wb::ResponseScale::kReciprocal}) {
    CHECK(wb::from_response(scale, wb::to_response(scale, 137.5)) == Approx(137.5));
  }
  CHECK(wb::to_response(wb::ResponseScale::kReciprocal, 200.0) == Approx(0.005));
  CHECK(wb::to_response(wb::ResponseScale::kLog, std::exp(2.0)) == Approx(2.0));
  CHECK_THROWS_AS(wb::to_response(wb::ResponseScale::kLog, 0.0), wb::InputError);
  CHECK_THROWS_AS(wb::to_response(wb::ResponseScale::kReciprocal, -3.0), wb::InputError);
  CHECK(wb::to_response(wb::ResponseScale::kIdentity, -3.0) == -3.0);
  // |d g^-1/dz|: exp(z) for log, 1/z^2 for reciprocal.
  CHECK(wb::response_slope(wb::ResponseScale::kLog, 1.0) == Approx(std::exp(1.0)));
  CHECK(wb::response_slope(wb::ResponseScale::kReciprocal, 0.01) == Approx(10000));
  CHECK(wb::response_slope(wb::ResponseScale::kIdentity, 5.0) == 1.0);
}

TEST_CASE("inverse coding maps min to -1 and max to +1 on the 1/x scale", "[rsm][coding]") {
  const wb::Coding c = wb::Coding::from_levels(kDisks, wb::CodingScale::kInverse);
  CHECK(c.code(1) == Approx(-1));
  CHECK(c.code(4) == Approx(1));
  // 1/x: 1, 0.5, 1/3, 0.25 -> evenly spaced in 1/x, so disks = 2 sits at 2/3 of the way to +1 from -1.
  CHECK(c.code(2) == Approx(-1 + 2 * (1 - 0.5) / 0.75));
  CHECK(c.code(2) < c.code(3));  // monotone increasing in x
  for (double x : {1.0, 1.5, 2.0, 3.0, 4.0, 7.0}) CHECK(c.uncode(c.code(x)) == Approx(x));
  CHECK(std::string(wb::to_string(wb::CodingScale::kInverse)) == "inverse");
  CHECK(wb::parse_coding_scale("inverse") == wb::CodingScale::kInverse);
  CHECK_THROWS_AS(wb::Coding(0, 4, wb::CodingScale::kInverse), wb::InputError);
  CHECK_THROWS_AS(c.code(0), wb::InputError);
}

TEST_CASE("cubic model terms: quadratic terms then cubes, squared interactions, triple products",
          "[rsm][terms]") {
  auto two = wb::model_terms(wb::ModelKind::kCubic, {"disks", "threads"});
  REQUIRE(two.size() == 10);
  CHECK(wb::term_names(two) == std::vector<std::string>{"1", "disks", "threads", "disks*threads", "disks^2",
                                                        "threads^2", "disks^3", "threads^3",
                                                        "disks^2*threads", "disks*threads^2"});
  CHECK(two[8].powers == std::vector<int>{2, 1});
  CHECK(two[9].powers == std::vector<int>{1, 2});
  auto three = wb::model_terms(wb::ModelKind::kCubic, {"a", "b", "c"});
  CHECK(three.size() == 20);  // (n+1)(n+2)(n+3)/6
  CHECK(three.back().name == "a*b*c");
  CHECK(three.back().powers == std::vector<int>{1, 1, 1});
  CHECK(wb::parse_model_kind("cubic") == wb::ModelKind::kCubic);
  CHECK(std::string(wb::to_string(wb::ModelKind::kCubic)) == "cubic");
  // A cubic is exact on a cubic: fit y = 3 + d^2*t - 2 t^3 over the 32 coded samples.
  const std::vector<wb::Coding> codings{wb::Coding::from_levels(kDisks),
                                        wb::Coding::from_levels(kThreads, wb::CodingScale::kLog)};
  const Eigen::MatrixXd pts = wb::full_factorial({kDisks, kThreads});
  const Eigen::MatrixXd coded = wb::code_points(pts, codings);
  Eigen::VectorXd y(pts.rows());
  for (Eigen::Index i = 0; i < pts.rows(); ++i) {
    const double d = coded(i, 0);
    const double t = coded(i, 1);
    y(i) = 3 + d * d * t - 2 * t * t * t;
  }
  wb::Surface s({"disks", "threads"}, codings, wb::ModelKind::kCubic, pts, y);
  CHECK(s.fit().coefficients(0) == Approx(3));
  CHECK(s.fit().coefficients(7) == Approx(-2));
  CHECK(s.fit().coefficients(8) == Approx(1));
  CHECK(s.fit().coefficients.norm() == Approx(std::sqrt(9.0 + 4 + 1)));
}

TEST_CASE("a known log-quadratic surface is recovered exactly on the log response", "[rsm][response]") {
  const std::vector<wb::Coding> codings{wb::Coding::from_levels(kDisks),
                                        wb::Coding::from_levels(kThreads, wb::CodingScale::kLog)};
  const Eigen::MatrixXd pts = wb::full_factorial({kDisks, kThreads});
  const Eigen::MatrixXd coded = wb::code_points(pts, codings);
  // ln λ* = 5 + 0.4 d + 0.8 t + 0.1 d t - 0.2 d^2 - 0.5 t^2
  auto truth = [](double d, double t) {
    return std::exp(5 + 0.4 * d + 0.8 * t + 0.1 * d * t - 0.2 * d * d - 0.5 * t * t);
  };
  Eigen::VectorXd y(pts.rows());
  for (Eigen::Index i = 0; i < pts.rows(); ++i) y(i) = truth(coded(i, 0), coded(i, 1));
  // Fit from 8 of the 32 samples; predict all 32 exactly.
  const std::vector<Eigen::Index> rows{0, 3, 9, 14, 17, 22, 28, 31};
  Eigen::MatrixXd sub(8, 2);
  Eigen::VectorXd sub_y(8);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    sub.row(static_cast<Eigen::Index>(i)) = pts.row(rows[i]);
    sub_y(static_cast<Eigen::Index>(i)) = y(rows[i]);
  }
  wb::Surface s({"disks", "threads"}, codings, wb::ModelKind::kQuadratic, sub, sub_y,
                wb::ResponseScale::kLog);
  CHECK(s.response() == wb::ResponseScale::kLog);
  const Eigen::VectorXd b = s.fit().coefficients;  // on the log scale
  CHECK(b(0) == Approx(5));
  CHECK(b(1) == Approx(0.4));
  CHECK(b(2) == Approx(0.8));
  CHECK(b(3) == Approx(0.1));
  CHECK(b(4) == Approx(-0.2));
  CHECK(b(5) == Approx(-0.5));
  CHECK(s.holdout_mape(pts, y) == Approx(0).margin(1e-9));
  CHECK(s.loo_mape().value() == Approx(0).margin(1e-9));
  CHECK(s.r2() == Approx(1));
  CHECK(s.observed() == sub_y);
  const Eigen::RowVectorXd p = pts.row(12);
  CHECK(s.predict(p).value == Approx(y(12)));
  // The identity-scale quadratic cannot follow it.
  wb::Surface plain({"disks", "threads"}, codings, wb::ModelKind::kQuadratic, sub, sub_y);
  CHECK(plain.holdout_mape(pts, y) > 1.0);
}

TEST_CASE("a throughput bound 1/(a + b/disks + c/threads) is exact on the reciprocal response",
          "[rsm][response]") {
  const std::vector<wb::Coding> codings{wb::Coding::from_levels(kDisks, wb::CodingScale::kInverse),
                                        wb::Coding::from_levels(kThreads, wb::CodingScale::kInverse)};
  const Eigen::MatrixXd pts = wb::full_factorial({kDisks, kThreads});
  Eigen::VectorXd y(pts.rows());
  for (Eigen::Index i = 0; i < pts.rows(); ++i) y(i) = 1.0 / (0.001 + 0.012 / pts(i, 0) + 0.02 / pts(i, 1));
  wb::Surface s({"disks", "threads"}, codings, wb::ModelKind::kFirstOrder, pts, y,
                wb::ResponseScale::kReciprocal);
  CHECK(s.holdout_mape(pts, y) == Approx(0).margin(1e-9));
  CHECK(s.loo_mape().value() == Approx(0).margin(1e-9));
  const Eigen::RowVectorXd at{{6.0, 48.0}};  // extrapolated in disks
  CHECK(s.predict(at).value == Approx(1.0 / (0.001 + 0.012 / 6 + 0.02 / 48)));
}

TEST_CASE("standard errors go back to natural units by the delta method", "[rsm][response]") {
  const std::vector<wb::Coding> codings{wb::Coding::from_levels(kDisks),
                                        wb::Coding::from_levels(kThreads, wb::CodingScale::kLog)};
  const Eigen::MatrixXd pts = wb::full_factorial({kDisks, kThreads});
  Eigen::VectorXd y(pts.rows());
  for (Eigen::Index i = 0; i < pts.rows(); ++i) {
    // Deterministic ±3% wobble so the residual variance is not zero.
    y(i) = (100 + 20 * pts(i, 0) + std::log(pts(i, 1))) * (1 + 0.03 * std::sin(7.0 * static_cast<double>(i)));
  }
  const Eigen::RowVectorXd at{{2.0, 16.0}};
  for (auto scale : {wb::ResponseScale::kLog, wb::ResponseScale::kReciprocal}) {
    wb::Surface s({"disks", "threads"}, codings, wb::ModelKind::kQuadratic, pts, y, scale);
    const wb::Prediction z = wb::predict(s.fit(), wb::code_points(at, codings));
    const wb::Prediction p = s.predict(at);
    CHECK(p.value == Approx(wb::from_response(scale, z.value)));
    const double slope = scale == wb::ResponseScale::kLog ? std::exp(z.value) : 1.0 / (z.value * z.value);
    CHECK(z.standard_error > 0);
    CHECK(p.standard_error == Approx(slope * z.standard_error));
    CHECK(p.prediction_error == Approx(slope * z.prediction_error));
    // LOO on the response scale mapped back, the same as refitting without each point.
    const auto e = wb::loo_residuals_by_refit(s.fit().terms, wb::code_points(pts, codings), s.fit().observed);
    REQUIRE(e);
    CHECK(s.loo_mape().value() == Approx(wb::mape(y, wb::from_response(scale, s.fit().observed - *e))));
  }
  CHECK_THROWS_AS(
      wb::Surface({"disks", "threads"}, codings, wb::ModelKind::kQuadratic, pts, -y, wb::ResponseScale::kLog),
      wb::InputError);
}
