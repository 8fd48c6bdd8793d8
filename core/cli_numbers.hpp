#pragma once
// CLI11 checks for numeric flags, shared by workbench and wbload. CLI11's Range lets NaN, "inf",
// "1e999", a wrapped "-1" and an overflowing int64 through; these refuse them, so a bad number is one
// line and exit 2 before anything runs. Header-only (wbload does not link wb_core).
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <system_error>

namespace wb::cli {

namespace detail {

inline std::string shown(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

}  // namespace detail

// A finite number in [low, high] (with `low_open`: above low). Use with Option::check().
inline CLI::Validator finite_number(double low, double high, bool low_open = false) {
  std::string range = (low_open ? "(" : "[") + detail::shown(low) + ", " + detail::shown(high) + "]";
  return CLI::Validator(
      [low, high, low_open, range](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end || ec == std::errc::invalid_argument)
          return "'" + text + "' is not a number";
        if (ec == std::errc::result_out_of_range || !std::isfinite(v) || !(low_open ? v > low : v >= low) ||
            !(v <= high))
          return "'" + text + "' is not a finite number in " + range;
        return std::string();
      },
      "NUMBER in " + range);
}

// A whole number in [low, high], written in decimal. Rewrites the text to its plain decimal form,
// because CLI11 would read a leading 0 as octal ("010" is 8); use with Option::transform().
inline CLI::Validator whole_number(std::int64_t low, std::int64_t high) {
  std::string range = "[" + std::to_string(low) + ", " + std::to_string(high) + "]";
  return CLI::Validator(
      [low, high, range](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end || ec == std::errc::invalid_argument)
          return "'" + text + "' is not a whole number";
        if (ec == std::errc::result_out_of_range || v < low || v > high)
          return "'" + text + "' is not a whole number in " + range;
        text = std::to_string(v);
        return std::string();
      },
      "INT in " + range);
}

// A seed: any whole number from 0 to 2^64-1, written in decimal (no sign). Use with transform().
inline CLI::Validator seed_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end || ec != std::errc())
          return "'" + text + "' is not a whole number from 0 to 18446744073709551615";
        text = std::to_string(v);
        return std::string();
      },
      "UINT64");
}

}  // namespace wb::cli
