#include "rsm/response.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

ResponseScale parse_response_scale(std::string_view text) {
  if (text == "identity") return ResponseScale::kIdentity;
  if (text == "log") return ResponseScale::kLog;
  if (text == "reciprocal") return ResponseScale::kReciprocal;
  throw InputError(fmt::format("response '{}': expected identity, log or reciprocal", text));
}

const char* to_string(ResponseScale scale) {
  switch (scale) {
    case ResponseScale::kIdentity: return "identity";
    case ResponseScale::kLog: return "log";
    case ResponseScale::kReciprocal: return "reciprocal";
  }
  return "?";
}

double to_response(ResponseScale scale, double y) {
  if (scale == ResponseScale::kIdentity) return y;
  if (!(y > 0) || !std::isfinite(y)) {
    throw InputError(fmt::format("{} response: value {} is not a positive number", to_string(scale), y));
  }
  return scale == ResponseScale::kLog ? std::log(y) : 1.0 / y;
}

Eigen::VectorXd to_response(ResponseScale scale, const Eigen::VectorXd& y) {
  Eigen::VectorXd z(y.size());
  for (Eigen::Index i = 0; i < y.size(); ++i) z(i) = to_response(scale, y(i));
  return z;
}

double from_response(ResponseScale scale, double z) {
  switch (scale) {
    case ResponseScale::kIdentity: return z;
    case ResponseScale::kLog: return std::exp(z);
    case ResponseScale::kReciprocal: return 1.0 / z;
  }
  return z;
}

Eigen::VectorXd from_response(ResponseScale scale, const Eigen::VectorXd& z) {
  Eigen::VectorXd y(z.size());
  for (Eigen::Index i = 0; i < z.size(); ++i) y(i) = from_response(scale, z(i));
  return y;
}

double response_slope(ResponseScale scale, double z) {
  switch (scale) {
    case ResponseScale::kIdentity: return 1.0;
    case ResponseScale::kLog: return std::exp(z);
    case ResponseScale::kReciprocal: return 1.0 / (z * z);
  }
  return 1.0;
}

}  // namespace wb
