#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/factor.hpp"

namespace wb {

// One assignment of a level to every factor of interest. Values are kept as canonical level text;
// numeric() converts. Ordered by factor name, so key() is canonical.
class Sample {
 public:
  Sample() = default;

  void set(const std::string& factor, std::string value) { values_[factor] = std::move(value); }
  bool has(const std::string& factor) const { return values_.count(factor) != 0; }
  const std::string& value(const std::string& factor) const;  // throws Error if absent
  double numeric(const std::string& factor) const;            // throws Error if absent or not a number
  const std::map<std::string, std::string>& values() const { return values_; }

  // "disks=2,threads=16": the canonical key under which the store keeps this sample.
  std::string key() const;

  bool operator==(const Sample&) const = default;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 takes the defaulted <=>'s 0 for a pointer
  auto operator<=>(const Sample&) const = default;

 private:
  std::map<std::string, std::string> values_;
};

// Which values --set takes: a declared level only, or also any finite number for a numeric factor
// (a point between or beyond the levels, for questions about configurations nobody measured).
enum class SampleValues { kLevels, kNumbers };

// Parses a --set list "k=v,k=v" against the declared factors on top of `base`: named factors
// override it, the others keep its values. Unknown factors, values `values` does not allow and
// duplicates are InputErrors.
Sample parse_sample(const std::string& text, const std::vector<Factor>& factors, Sample base,
                    SampleValues values = SampleValues::kLevels);

}  // namespace wb
