#include "harness/shell_quote.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {
namespace {

bool is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         // '=' is not plain: an unquoted first word a=b would be an assignment, not a command.
         c == '_' || c == '@' || c == '%' || c == '+' || c == ':' || c == ',' || c == '.' || c == '/' ||
         c == '-';
}

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Splits and substitutes in one pass over the template; see the grammar in the header.
class TemplateExpander {
 public:
  TemplateExpander(const std::string& text, const std::map<std::string, std::string>& values)
      : text_(text), values_(values) {}

  std::vector<std::string> expand() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (is_blank(c)) {
        end_word();
        ++pos_;
      } else if (c == '\'') {
        in_word_ = true;
        single_quoted();
      } else if (c == '"') {
        in_word_ = true;
        double_quoted();
      } else if (c == '\\') {
        if (pos_ + 1 >= text_.size()) fail("ends with a backslash");
        in_word_ = true;
        word_ += text_[pos_ + 1];
        pos_ += 2;
      } else if (c == '{' && placeholder()) {
        in_word_ = true;
      } else {
        in_word_ = true;
        word_ += c;
        ++pos_;
      }
    }
    end_word();
    if (words_.empty()) fail("has no command");
    return std::move(words_);
  }

 private:
  void single_quoted() {
    const auto close = text_.find('\'', pos_ + 1);
    if (close == std::string::npos) fail("has an unterminated ' quote");
    word_.append(text_, pos_ + 1, close - pos_ - 1);
    pos_ = close + 1;
  }

  void double_quoted() {
    ++pos_;
    while (true) {
      if (pos_ >= text_.size()) fail("has an unterminated \" quote");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return;
      }
      if (c == '\\' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '"' || text_[pos_ + 1] == '\\')) {
        word_ += text_[pos_ + 1];
        pos_ += 2;
      } else if (c == '{' && placeholder()) {
        // substituted
      } else {
        word_ += c;
        ++pos_;
      }
    }
  }

  // At a '{': substitutes {name} and returns true, or returns false if this brace does not
  // start a placeholder (then it is an ordinary character).
  bool placeholder() {
    std::size_t i = pos_ + 1;
    if (i >= text_.size() || !is_name_start(text_[i])) return false;
    while (i < text_.size() && is_name_char(text_[i])) ++i;
    if (i >= text_.size() || text_[i] != '}') return false;
    const std::string name = text_.substr(pos_ + 1, i - pos_ - 1);
    const auto it = values_.find(name);
    if (it == values_.end()) fail(fmt::format("uses {{{}}}, which has no value", name));
    word_ += it->second;
    pos_ = i + 1;
    return true;
  }

  void end_word() {
    if (in_word_) words_.push_back(std::move(word_));
    word_.clear();
    in_word_ = false;
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(fmt::format("command template \"{}\" {}", text_, why));
  }

  const std::string& text_;
  const std::map<std::string, std::string>& values_;
  std::size_t pos_ = 0;
  std::string word_;
  bool in_word_ = false;
  std::vector<std::string> words_;
};

}  // namespace

std::string shell_quote(const std::string& arg) {
  bool plain = !arg.empty();
  for (char c : arg) plain = plain && is_plain(c);
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string expand_file_template(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  std::size_t line = 1;
  for (std::size_t pos = 0; pos < text.size();) {
    const char c = text[pos];
    // ${name} is the file's own syntax (a shell or nginx variable), not a placeholder.
    if (c == '{' && (pos == 0 || text[pos - 1] != '$')) {
      const bool escaped = pos + 1 < text.size() && text[pos + 1] == '{';
      const std::size_t start = pos + (escaped ? 2 : 1);
      std::size_t end = start;
      if (end < text.size() && is_name_start(text[end])) {
        while (end < text.size() && is_name_char(text[end])) ++end;
      }
      const bool named = end > start && end < text.size() && text[end] == '}';
      const std::string name = named ? text.substr(start, end - start) : std::string();
      if (named && escaped && end + 1 < text.size() && text[end + 1] == '}') {
        out += "{" + name + "}";
        pos = end + 2;
        continue;
      }
      if (named && !escaped) {
        const auto it = values.find(name);
        if (it == values.end())
          throw InputError(fmt::format("line {}: {{{}}} has no value (write {{{{{}}}}} for the text {{{}}})",
                                       line, name, name, name));
        out += it->second;
        pos = end + 1;
        continue;
      }
    }
    if (c == '\n') ++line;
    out += c;
    ++pos;
  }
  return out;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

std::vector<std::string> expand_command_template(const std::string& command_template,
                                                 const std::map<std::string, std::string>& values) {
  return TemplateExpander(command_template, values).expand();
}

}  // namespace wb
