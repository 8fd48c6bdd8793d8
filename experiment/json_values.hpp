#pragma once
// Optional and non-finite numbers in reports: JSON null, never NaN or infinity (which JSON lacks).
#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/config.hpp"

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

// The sample as a JSON object, numeric factors as numbers (DESIGN.md "Command contracts").
inline nlohmann::json sample_json(const Config& config, const Sample& sample) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : sample.values()) {
    const Factor* f = config.factor(name);
    std::optional<double> number;
    if (f != nullptr && f->numeric) number = f->axis_value(value);
    // A level the config no longer declares (it was edited since) keeps its stored text.
    j[name] = number ? nlohmann::json(*number) : nlohmann::json(value);
  }
  return j;
}

}  // namespace wb
