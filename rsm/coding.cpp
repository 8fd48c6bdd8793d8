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
  if (text == "inverse") return CodingScale::kInverse;
  throw InputError(fmt::format("coding scale '{}': expected linear, log or inverse", text));
}

const char* to_string(CodingScale scale) {
  switch (scale) {
    case CodingScale::kLinear: return "linear";
    case CodingScale::kLog: return "log";
    case CodingScale::kInverse: return "inverse";
    case CodingScale::kCategorical: return "categorical";
  }
  return "?";
}

namespace {

// x on the coding scale; InputError for x <= 0 on the log and inverse scales.
double to_scale(CodingScale scale, double x) {
  if (scale == CodingScale::kLinear || scale == CodingScale::kCategorical) return x;
  if (!(x > 0)) {
    throw InputError(fmt::format("{} coding: value {} is not positive", to_string(scale), x));
  }
  return scale == CodingScale::kLog ? std::log(x) : 1.0 / x;
}

double from_scale(CodingScale scale, double v) {
  switch (scale) {
    case CodingScale::kLinear: return v;
    case CodingScale::kLog: return std::exp(v);
    case CodingScale::kInverse: return 1.0 / v;
    case CodingScale::kCategorical: return v;
  }
  return v;
}

}  // namespace

Coding::Coding(double min, double max, CodingScale scale) : min_(min), max_(max), scale_(scale) {
  if (!(min < max)) {
    throw InputError(fmt::format("coding range [{}, {}]: min must be below max", min, max));
  }
  if (scale == CodingScale::kCategorical)
    throw InputError("coding: a categorical coding is made from its level names (Coding::categorical)");
  if (scale != CodingScale::kLinear && !(min > 0)) {
    throw InputError(
        fmt::format("{} coding of [{}, {}]: levels must be positive", to_string(scale), min, max));
  }
  lo_ = to_scale(scale, min);
  hi_ = to_scale(scale, max);
}

Coding Coding::from_levels(const std::vector<double>& levels, CodingScale scale) {
  if (levels.empty()) throw InputError("coding: a factor needs at least two distinct levels");
  auto [lo, hi] = std::minmax_element(levels.begin(), levels.end());
  if (!(*lo < *hi)) {
    throw InputError(fmt::format("coding: a factor needs at least two distinct levels (all are {})", *lo));
  }
  return Coding(*lo, *hi, scale);
}

Coding Coding::categorical(std::vector<std::string> categories) {
  if (categories.size() < 2) throw InputError("coding: a categorical factor needs at least two levels");
  Coding c(0, static_cast<double>(categories.size() - 1));
  c.scale_ = CodingScale::kCategorical;
  c.categories_ = std::move(categories);
  return c;
}

// For kInverse lo_ > hi_, so the same formula still maps min to -1 and max to +1.
double Coding::code(double x) const {
  if (scale_ == CodingScale::kCategorical) {
    if (!(x >= 0 && x <= max_ && x == std::floor(x)))
      throw InputError(fmt::format("categorical coding: {} is not a level index 0..{}", x, max_));
    return x;
  }
  return (2.0 * to_scale(scale_, x) - (hi_ + lo_)) / (hi_ - lo_);
}

double Coding::uncode(double c) const {
  if (scale_ == CodingScale::kCategorical) return c;
  return from_scale(scale_, (c * (hi_ - lo_) + (hi_ + lo_)) / 2.0);
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
