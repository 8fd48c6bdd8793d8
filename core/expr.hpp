#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/sample.hpp"

namespace wb {

// An arithmetic expression over factor values, as written in configs: "{disks}", "2*{threads}",
// "min({threads}, 8) + 0.5". Numbers, {factor}, + - * /, unary minus, parentheses, min(a,b,...),
// max(a,b,...). Parsed once; evaluated for each sample.
class Expr {
 public:
  Expr();  // the constant 0
  static Expr constant(double v);
  // Throws InputError("...") describing the syntax problem; the caller adds file:line:key.
  static Expr parse(const std::string& text);

  double eval(const Sample& sample) const;  // throws Error if a factor is missing or non-numeric
  const std::string& text() const { return text_; }
  // The factor names the expression refers to, in order of first appearance.
  const std::vector<std::string>& factors() const { return factors_; }
  bool is_constant() const { return factors_.empty(); }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
  std::vector<std::string> factors_;
};

}  // namespace wb
