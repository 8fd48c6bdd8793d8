#pragma once
// The scale z = g(y) a response surface is fitted on [003 §4]: identity, log (never a negative λ*) or
// reciprocal (1/λ* near linear in 1/servers of the limiting pool: docs/decisions.md#rsm-scales). Fits,
// standard errors and LOO residuals live on z; predictions and delta-method errors are in y. Pure.
#include <string_view>

#include <Eigen/Dense>

namespace wb {

enum class ResponseScale {
  kIdentity,
  kLog,
  kReciprocal,
};

// "identity" | "log" | "reciprocal"; InputError otherwise. to_string gives them back.
ResponseScale parse_response_scale(std::string_view text);
const char* to_string(ResponseScale scale);

// z = g(y). InputError if y <= 0 (or not finite) on the log and reciprocal scales.
double to_response(ResponseScale scale, double y);
Eigen::VectorXd to_response(ResponseScale scale, const Eigen::VectorXd& y);

// y = g^-1(z). On the reciprocal scale z <= 0 has no meaning as a rate: the result is +inf for
// z == 0 and negative for z < 0 (a fit extrapolated beyond its pole); callers report it as is.
double from_response(ResponseScale scale, double z);
Eigen::VectorXd from_response(ResponseScale scale, const Eigen::VectorXd& z);

// |d g^-1 / dz| at z: the factor the delta method multiplies standard errors by.
double response_slope(ResponseScale scale, double z);

}  // namespace wb
