#include "core/sample.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "core/factor.hpp"

namespace wb {

const std::string& Sample::value(const std::string& factor) const {
  auto it = values_.find(factor);
  if (it == values_.end()) throw Error(fmt::format("sample {} has no factor '{}'", key(), factor));
  return it->second;
}

double Sample::numeric(const std::string& factor) const {
  const std::string& v = value(factor);
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size()) {
    throw Error(fmt::format("factor '{}' has non-numeric value '{}'", factor, v));
  }
  return d;
}

std::string Sample::key() const {
  std::string out;
  for (const auto& [k, v] : values_) {
    if (!out.empty()) out += ',';
    out += k;
    out += '=';
    out += v;
  }
  return out;
}

Sample parse_sample(const std::string& text, const std::vector<Factor>& factors, Sample base,
                    SampleValues values) {
  Sample& s = base;
  std::map<std::string, bool> given;
  std::size_t pos = 0;
  while (pos <= text.size() && !text.empty()) {
    std::size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(fmt::format("--set '{}': expected FACTOR=VALUE, got '{}'", text, item));
    }
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    const Factor* f = nullptr;
    for (const auto& c : factors) {
      if (c.name == name) f = &c;
    }
    if (f == nullptr) {
      std::string known;
      for (const auto& c : factors) known += (known.empty() ? "" : ", ") + c.name;
      throw InputError(fmt::format("--set: unknown factor '{}' (this config declares: {})", name,
                                   known.empty() ? "none" : known));
    }
    if (given[name]) throw InputError(fmt::format("--set: factor '{}' is given twice", name));
    given[name] = true;
    auto idx = f->find_level(value);
    if (!idx && f->numeric && (values == SampleValues::kNumbers || f->between)) {
      char* end = nullptr;
      const double x = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(x))
        throw InputError(fmt::format("--set: '{}' is not a number (factor '{}' is numeric)", value, name));
      const auto [lo, hi] = std::minmax_element(f->numeric_levels.begin(), f->numeric_levels.end());
      if (values == SampleValues::kLevels && (x < *lo || x > *hi)) {
        throw InputError(
            fmt::format("--set: {}={} is outside its levels' range [{}, {}] (between = true runs "
                        "values inside it only)",
                        name, value, format_number(*lo), format_number(*hi)));
      }
      s.set(name, format_number(x));
      continue;
    }
    if (!idx) {
      std::string lv;
      for (const auto& l : f->levels) lv += (lv.empty() ? "" : ", ") + l;
      throw InputError(
          fmt::format("--set: '{}' is not a level of factor '{}' (levels: {})", value, name, lv));
    }
    s.set(name, f->levels[*idx]);
  }
  return base;
}

}  // namespace wb
