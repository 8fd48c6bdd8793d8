#pragma once
#include <optional>
#include <string>
#include <vector>

namespace wb {

// The three kinds of factor of [003 Table 1]: workload, resource, configuration.
enum class FactorKind { kWorkload, kResource, kConfiguration };

const char* to_string(FactorKind k);

// A named dimension of the experiment space with its declared levels. A numeric factor's levels
// are numbers (kept also as their canonical text); a categorical factor's levels are names.
struct Factor {
  std::string name;
  FactorKind kind = FactorKind::kConfiguration;
  bool numeric = true;
  std::vector<std::string> levels;     // canonical text of every level, in declared order
  std::vector<double> numeric_levels;  // same order; empty for categorical factors
  // `between = true`: any number within the levels' range may be run (a thread count of 24 where
  // 16 and 32 are declared), so probes can bisect a deviation's boundary below the levels' spacing.
  bool between = false;

  // Index of `value` among the levels, or nullopt. Numeric values compare by number
  // ("2" matches "2.0").
  std::optional<std::size_t> find_level(const std::string& value) const;

  // The factor as a column of a response surface (rsm/coding.hpp): a numeric factor's levels and
  // values are its numbers, a categorical factor's are level indices 0..L-1.
  std::vector<double> axis_levels() const;
  // The column value of `value`: its number (any number, not only a level), or a categorical
  // level's index; nullopt when it is neither.
  std::optional<double> axis_value(const std::string& value) const;
  // The text of a column value: format_number, or the categorical level at that index (empty when
  // there is none).
  std::string axis_text(double v) const;
};

// Canonical text of a number: integers without a decimal point, others with %g precision.
std::string format_number(double v);

}  // namespace wb
