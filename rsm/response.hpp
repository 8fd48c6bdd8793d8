#pragma once
// The scale on which a response surface is fitted [003 §4]. The least-squares fit, its standard
// errors and its LOO residuals live on the transformed scale z = g(y); predictions are reported
// in natural units y = g^-1(z).
//
//   identity    z = y      the classic quadratic surface of [003 §4]
//   log         z = ln y   multiplicative effects; a fit can never predict a negative λ*
//   reciprocal  z = 1 / y  throughput-bound systems: by the operational laws 1/X_max is the
//                          largest per-server demand D_k / m_k, so 1/λ* is close to linear in
//                          1/m for the pool that limits it (code server counts with
//                          CodingScale::kInverse); the surface follows a plateau where the
//                          identity scale overshoots and undershoots around it
//
// Standard errors are carried back by the delta method: se_y = |d g^-1/dz| * se_z, evaluated at
// the fitted z (exp(z) for log, 1/z^2 for reciprocal). They are first-order: the interval z ± se_z
// mapped back is asymmetric, and the delta-method se is its local half-width.
//
// Pure functions; safe from any thread.
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
