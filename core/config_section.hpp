#pragma once
#include <toml++/toml.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace wb {

// A view of one TOML table of a config file that reads typed values and reports every problem as
// one InputError line "FILE:LINE:KEY: what is wrong". It remembers which keys were read, so
// finish() can reject unknown keys (typos) in the same format.
//
// The viewed table must outlive the section.
class ConfigSection {
 public:
  ConfigSection(const toml::table& table, std::string file, std::string path);

  bool has(const std::string& key) const;
  // Required values: throw when missing or of the wrong type.
  double number(const std::string& key);
  std::string string(const std::string& key);
  // Optional values with defaults.
  double number_or(const std::string& key, double fallback);
  std::int64_t integer_or(const std::string& key, std::int64_t fallback);
  bool boolean_or(const std::string& key, bool fallback);
  std::string string_or(const std::string& key, const std::string& fallback);
  std::optional<std::string> optional_string(const std::string& key);
  // A value given as a number or a string, returned as text (for expressions: 8 or "{disks}").
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
