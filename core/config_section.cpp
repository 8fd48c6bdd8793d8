#include "core/config_section.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace wb {

Bounds Bounds::positive(double high, std::string rule) {
  return Bounds{0, high, true, false, std::move(rule)};
}

Bounds Bounds::non_negative(double high, std::string rule) {
  return Bounds{0, high, false, false, std::move(rule)};
}

bool Bounds::admits(double v) const {
  if (!std::isfinite(v)) return false;
  return (low_open ? v > low : v >= low) && (high_open ? v < high : v <= high);
}

ConfigSection::ConfigSection(const toml::table& table, std::string file, std::string path)
    : table_(&table), file_(std::move(file)), path_(std::move(path)) {}

std::size_t ConfigSection::line_of(const toml::node* n) const {
  if (n != nullptr && n->source().begin.line > 0) return n->source().begin.line;
  return table_->source().begin.line > 0 ? table_->source().begin.line : 1;
}

std::string ConfigSection::where(const std::string& key) const {
  const toml::node* n = key.empty() ? nullptr : table_->get(key);
  std::string full = path_.empty() ? key : (key.empty() ? path_ : path_ + "." + key);
  return fmt::format("{}:{}:{}", file_, line_of(n), full);
}

void ConfigSection::fail(const std::string& key, const std::string& what) const {
  throw InputError(fmt::format("{}: {}", where(key), what));
}

void ConfigSection::fail_here(const std::string& what) const {
  throw InputError(fmt::format("{}:{}:{}: {}", file_, line_of(nullptr), path_, what));
}

bool ConfigSection::has(const std::string& key) const { return table_->contains(key); }

const toml::node* ConfigSection::get(const std::string& key) {
  read_.insert(key);
  return table_->get(key);
}

const toml::node* ConfigSection::raw(const std::string& key) { return get(key); }

double ConfigSection::number(const std::string& key, const Bounds& bounds) {
  const toml::node* n = get(key);
  if (n == nullptr) fail(key, "required key is missing");
  if (!n->is_integer() && !n->is_floating_point()) fail(key, "must be a number");
  const double v = *n->value<double>();
  if (!bounds.admits(v)) fail(key, fmt::format("{} (got {})", bounds.rule, v));
  return v;
}

double ConfigSection::number_or(const std::string& key, double fallback, const Bounds& bounds) {
  return has(key) ? number(key, bounds) : (read_.insert(key), fallback);
}

std::int64_t ConfigSection::whole_number_or(const std::string& key, std::int64_t fallback, std::int64_t low,
                                            std::int64_t high, const std::string& rule) {
  const toml::node* n = get(key);
  if (n == nullptr) return fallback;
  if (!n->is_integer()) fail(key, "must be a whole number");
  const std::int64_t v = *n->value<std::int64_t>();
  if (v < low || v > high) fail(key, fmt::format("{} (got {})", rule, v));
  return v;
}

bool ConfigSection::boolean_or(const std::string& key, bool fallback) {
  const toml::node* n = get(key);
  if (n == nullptr) return fallback;
  if (!n->is_boolean()) fail(key, "must be true or false");
  return *n->value<bool>();
}

std::string ConfigSection::string(const std::string& key) {
  const toml::node* n = get(key);
  if (n == nullptr) fail(key, "required key is missing");
  if (!n->is_string()) fail(key, "must be a string");
  return *n->value<std::string>();
}

std::string ConfigSection::string_or(const std::string& key, const std::string& fallback) {
  return has(key) ? string(key) : (read_.insert(key), fallback);
}

std::optional<std::string> ConfigSection::optional_string(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return string(key);
}

std::string ConfigSection::number_or_string(const std::string& key) {
  const toml::node* n = get(key);
  if (n == nullptr) fail(key, "required key is missing");
  if (n->is_string()) return *n->value<std::string>();
  if (n->is_integer()) return fmt::format("{}", *n->value<std::int64_t>());
  if (n->is_floating_point()) {
    const double v = *n->value<double>();
    if (!std::isfinite(v))
      fail(key, fmt::format("must be a finite number or an expression string (got {})", v));
    return fmt::format("{:.17g}", v);
  }
  fail(key, "must be a number or an expression string");
}

std::optional<std::string> ConfigSection::optional_number_or_string(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return number_or_string(key);
}

std::vector<std::string> ConfigSection::string_array(const std::string& key) {
  const toml::node* n = get(key);
  if (n == nullptr) fail(key, "required key is missing");
  const toml::array* a = n->as_array();
  if (a == nullptr) fail(key, "must be an array of strings");
  std::vector<std::string> out;
  for (const auto& e : *a) {
    if (!e.is_string()) fail(key, "must be an array of strings");
    out.push_back(*e.value<std::string>());
  }
  return out;
}

std::optional<ConfigSection> ConfigSection::table(const std::string& key) {
  const toml::node* n = get(key);
  if (n == nullptr) return std::nullopt;
  const toml::table* t = n->as_table();
  if (t == nullptr) fail(key, "must be a table");
  return ConfigSection(*t, file_, path_.empty() ? key : path_ + "." + key);
}

std::vector<ConfigSection> ConfigSection::table_array(const std::string& key) {
  const toml::node* n = get(key);
  std::vector<ConfigSection> out;
  if (n == nullptr) return out;
  const toml::array* a = n->as_array();
  if (a == nullptr)
    fail(key, "must be an array of tables ([[" + (path_.empty() ? key : path_ + "." + key) + "]])");
  std::size_t i = 0;
  for (const auto& e : *a) {
    const toml::table* t = e.as_table();
    std::string p = fmt::format("{}[{}]", path_.empty() ? key : path_ + "." + key, i++);
    if (t == nullptr) fail(key, "every element must be a table");
    out.emplace_back(*t, file_, p);
  }
  return out;
}

std::vector<std::string> ConfigSection::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : *table_) out.emplace_back(k.str());
  return out;
}

void ConfigSection::finish() const {
  for (const auto& [k, v] : *table_) {
    std::string key(k.str());
    if (read_.count(key) == 0) {
      throw InputError(
          fmt::format("{}:{}:{}: unknown key", file_, line_of(&v), path_.empty() ? key : path_ + "." + key));
    }
  }
}

namespace {

[[noreturn]] void throw_parse_error(const toml::parse_error& e, const std::string& file) {
  const auto& b = e.source().begin;
  if (b.line == 0) throw InputError(fmt::format("{}: {}", file, e.description()));
  throw InputError(fmt::format("{}:{}:{}: {}", file, b.line, b.column, e.description()));
}

}  // namespace

toml::table parse_toml_file(const std::string& file) {
  try {
    return toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    throw_parse_error(e, file);
  }
}

toml::table parse_toml_text(const std::string& text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw_parse_error(e, file);
  }
}

}  // namespace wb
