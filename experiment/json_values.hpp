#pragma once
// Optional and non-finite numbers in reports: JSON null, never NaN or infinity (which JSON lacks).
#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace wb {

inline nlohmann::json opt_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}
inline std::optional<double> finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}
inline nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

}  // namespace wb
