#include "rsm/coding.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

CodingScale parse_coding_scale(std::string_view text) {
  if (text == "linear") return CodingScale::kLinear;
  if (text == "log") return CodingScale::kLog;
  throw InputError(fmt::format("coding scale '{}': expected linear or log", text));
}

const char* to_string(CodingScale scale) { return scale == CodingScale::kLog ? "log" : "linear"; }

Coding::Coding(double min, double max, CodingScale scale) : min_(min), max_(max), scale_(scale) {
  if (!(min < max)) {
    throw InputError(fmt::format("coding range [{}, {}]: min must be below max", min, max));
  }
  if (scale == CodingScale::kLog && !(min > 0)) {
    throw InputError(fmt::format("log coding of [{}, {}]: levels must be positive", min, max));
  }
  lo_ = scale == CodingScale::kLog ? std::log(min) : min;
  hi_ = scale == CodingScale::kLog ? std::log(max) : max;
}

Coding Coding::from_levels(const std::vector<double>& levels, CodingScale scale) {
  if (levels.empty()) throw InputError("coding: a factor needs at least two distinct levels");
  auto [lo, hi] = std::minmax_element(levels.begin(), levels.end());
  if (!(*lo < *hi)) {
    throw InputError(fmt::format("coding: a factor needs at least two distinct levels (all are {})", *lo));
  }
  return Coding(*lo, *hi, scale);
}

double Coding::code(double x) const {
  double v = x;
  if (scale_ == CodingScale::kLog) {
    if (!(x > 0)) throw InputError(fmt::format("log coding: value {} is not positive", x));
    v = std::log(x);
  }
  return (2.0 * v - (hi_ + lo_)) / (hi_ - lo_);
}

double Coding::uncode(double c) const {
  double v = (c * (hi_ - lo_) + (hi_ + lo_)) / 2.0;
  if (scale_ == CodingScale::kLog) return std::exp(v);
  return v;
}

namespace {

template <typename F>
Eigen::MatrixXd map_columns(const Eigen::MatrixXd& in, const std::vector<Coding>& codings, F f) {
  if (static_cast<std::size_t>(in.cols()) != codings.size()) {
    throw InputError(
        fmt::format("coding: points have {} columns but {} codings were given", in.cols(), codings.size()));
  }
  Eigen::MatrixXd out(in.rows(), in.cols());
  for (Eigen::Index j = 0; j < in.cols(); ++j) {
    for (Eigen::Index i = 0; i < in.rows(); ++i) out(i, j) = f(codings[j], in(i, j));
  }
  return out;
}

}  // namespace

Eigen::MatrixXd code_points(const Eigen::MatrixXd& points, const std::vector<Coding>& codings) {
  return map_columns(points, codings, [](const Coding& c, double x) { return c.code(x); });
}

Eigen::MatrixXd uncode_points(const Eigen::MatrixXd& coded, const std::vector<Coding>& codings) {
  return map_columns(coded, codings, [](const Coding& c, double x) { return c.uncode(x); });
}

}  // namespace wb
