#pragma once
#include <toml++/toml.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace wb {

// The values a numeric config key accepts: a finite number in [low, high], either end excluded
// when open. `rule` is what an error says, and states the whole range, ceiling included ("must be
// a positive rate in requests/s, at most 1e8"); the error adds the value read ("(got inf)").
struct Bounds {
  double low = -std::numeric_limits<double>::max();
  double high = std::numeric_limits<double>::max();
  bool low_open = false;
  bool high_open = false;
  std::string rule = "must be a finite number";

  // (0, high] and [0, high], the two most common shapes.
  static Bounds positive(double high, std::string rule);
  static Bounds non_negative(double high, std::string rule);
  bool admits(double v) const;  // false for NaN and ±inf
};

// A view of one TOML table that reads typed values and reports every problem as one InputError line
// "FILE:LINE:KEY: what is wrong"; it remembers the keys read, so finish() rejects unknown keys (typos)
// the same way. The viewed table must outlive the section.
class ConfigSection {
 public:
  ConfigSection(const toml::table& table, std::string file, std::string path);

  bool has(const std::string& key) const;
  // Every number is read through these: a missing required key, a value of the wrong type, NaN,
  // ±inf and a value outside `bounds` (or, for whole numbers, outside [low, high], which must fit
  // the caller's integer type) throw "FILE:LINE:KEY: RULE (got VALUE)".
  double number(const std::string& key, const Bounds& bounds);
  double number_or(const std::string& key, double fallback, const Bounds& bounds);
  template <typename Int>
  Int integer_or(const std::string& key, Int fallback, Int low, Int high, const std::string& rule) {
    static_assert(std::is_integral_v<Int> && std::numeric_limits<Int>::max() <= INT64_MAX);
    return static_cast<Int>(whole_number_or(key, fallback, low, high, rule));
  }
  std::string string(const std::string& key);
  bool boolean_or(const std::string& key, bool fallback);
  std::string string_or(const std::string& key, const std::string& fallback);
  std::optional<std::string> optional_string(const std::string& key);
  // A value given as a finite number or a string, returned as text (for expressions: 8 or
  // "{disks}"). The caller checks what the expression evaluates to.
  std::string number_or_string(const std::string& key);
  std::optional<std::string> optional_number_or_string(const std::string& key);
  std::vector<std::string> string_array(const std::string& key);

  std::optional<ConfigSection> table(const std::string& key);
  std::vector<ConfigSection> table_array(const std::string& key);
  // Keys of this table (sorted), for tables whose keys are names (e.g. [factors]).
  std::vector<std::string> keys() const;
  const toml::node* raw(const std::string& key);  // marks the key read

  // Throws for the first key that no getter asked for.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  [[noreturn]] void fail_here(const std::string& what) const;  // about the table itself
  std::string where(const std::string& key) const;             // "FILE:LINE:path.key"
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

 private:
  const toml::node* get(const std::string& key);
  std::int64_t whole_number_or(const std::string& key, std::int64_t fallback, std::int64_t low,
                               std::int64_t high, const std::string& rule);
  std::size_t line_of(const toml::node* n) const;

  const toml::table* table_;
  std::string file_;
  std::string path_;
  std::set<std::string> read_;
};

// Parses FILE; a syntax error becomes an InputError "FILE:LINE:COL: description".
toml::table parse_toml_file(const std::string& file);
// Parses `text` as if read from `file` (named in errors, as above).
toml::table parse_toml_text(const std::string& text, const std::string& file);

}  // namespace wb
