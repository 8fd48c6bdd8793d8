#pragma once
#include <string>
#include <string_view>

namespace wb {

// Target confidence c and accuracy a of a peak search [003 §2.3], both as fractions in (0, 1).
// accuracy = 1 - (CI half-width / mean) [003 eq. 2].
struct Target {
  double confidence = 0.95;
  double accuracy = 0.90;

  // Parses "C/A" in percent, e.g. "95/90". Throws InputError naming the problem when the text is
  // malformed or a part is not strictly between 0 and 100.
  static Target parse(std::string_view text);
  std::string to_string() const;  // "95/90"
};

}  // namespace wb
