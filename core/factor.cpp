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

}  // namespace wb
