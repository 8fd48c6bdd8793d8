#include "core/factor.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace wb {

const char* to_string(FactorKind k) {
  switch (k) {
    case FactorKind::kWorkload: return "workload";
    case FactorKind::kResource: return "resource";
    case FactorKind::kConfiguration: return "configuration";
  }
  return "?";
}

std::string format_number(double v) {
  if (std::isfinite(v) && std::fabs(v) < 1e15 && v == std::floor(v)) {
    return fmt::format("{}", static_cast<long long>(v));
  }
  return fmt::format("{:.10g}", v);
}

std::optional<std::size_t> Factor::find_level(const std::string& value) const {
  if (numeric) {
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size()) return std::nullopt;
    for (std::size_t i = 0; i < numeric_levels.size(); ++i) {
      if (numeric_levels[i] == v) return i;
    }
    return std::nullopt;
  }
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i] == value) return i;
  }
  return std::nullopt;
}

std::vector<double> Factor::axis_levels() const {
  if (numeric) return numeric_levels;
  std::vector<double> out;
  for (std::size_t i = 0; i < levels.size(); ++i) out.push_back(static_cast<double>(i));
  return out;
}

std::optional<double> Factor::axis_value(const std::string& value) const {
  if (!numeric) {
    if (auto i = find_level(value)) return static_cast<double>(*i);
    return std::nullopt;
  }
  char* end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string Factor::axis_text(double v) const {
  if (numeric) return format_number(v);
  if (v >= 0 && v == std::floor(v) && v < static_cast<double>(levels.size()))
    return levels[static_cast<std::size_t>(v)];
  return {};
}

}  // namespace wb
