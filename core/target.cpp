#include "core/target.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/error.hpp"

namespace wb {

namespace {

double parse_percent(std::string_view whole, std::string_view part, const char* which) {
  double v = 0;
  auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (part.empty() || ec != std::errc() || end != part.data() + part.size()) {
    throw InputError(fmt::format(
        "--target '{}': {} '{}' is not a number (expected C/A in percent, e.g. 95/90)", whole, which, part));
  }
  if (!(v > 0.0 && v < 100.0)) {
    throw InputError(
        fmt::format("--target '{}': {} {} must be greater than 0 and less than 100", whole, which, part));
  }
  return v / 100.0;
}

}  // namespace

Target Target::parse(std::string_view text) {
  auto slash = text.find('/');
  if (slash == std::string_view::npos || text.find('/', slash + 1) != std::string_view::npos) {
    throw InputError(fmt::format("--target '{}': expected CONFIDENCE/ACCURACY in percent, e.g. 95/90", text));
  }
  Target t;
  t.confidence = parse_percent(text, text.substr(0, slash), "confidence");
  t.accuracy = parse_percent(text, text.substr(slash + 1), "accuracy");
  return t;
}

std::string Target::to_string() const {
  return fmt::format("{:g}/{:g}", confidence * 100.0, accuracy * 100.0);
}

}  // namespace wb
