#pragma once
// Test helper: comparing a computed figure with one printed in a textbook table.
#include <cmath>

namespace wb::test {

// A printed value rounded to `decimals` places: |computed − printed| ≤ half a unit of the last place.
inline bool matches_printed(double computed, double printed, int decimals) {
  return std::abs(computed - printed) <= 0.5 * std::pow(10.0, -decimals) + 1e-12;
}

}  // namespace wb::test
