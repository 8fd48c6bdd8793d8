#include "core/expr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "core/error.hpp"

namespace wb {

struct Expr::Node {
  enum Kind { kNumber, kFactor, kAdd, kSub, kMul, kDiv, kNeg, kMin, kMax } kind = kNumber;
  int depth = 1;  // of the tree below and including this node
  double number = 0;
  std::string factor;
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;

// Parsing, evaluating and freeing an expression recurse once per level of nesting (parentheses,
// unary minus, a chain of + or *): a deeper one is refused rather than left to overflow the stack.
constexpr int kMaxDepth = 256;

// Recursive descent over: expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
// unary := '-' unary | primary; primary := number | '{' name '}' | fn '(' expr (',' expr)* ')' | '(' expr ')'
class Parser {
 public:
  Parser(const std::string& text, std::vector<std::string>* factors) : s_(text), factors_(factors) {}

  NodePtr parse() {
    NodePtr n = expr();
    skip();
    if (i_ != s_.size()) fail("unexpected '" + std::string(1, s_[i_]) + "'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    throw InputError(fmt::format("expression '{}': {} at column {}", s_, why, i_ + 1));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  NodePtr make(Expr::Node::Kind k, std::vector<NodePtr> args) {
    auto n = std::make_shared<Expr::Node>();
    n->kind = k;
    for (const auto& a : args) n->depth = std::max(n->depth, a->depth + 1);
    if (n->depth > kMaxDepth) fail(fmt::format("nested deeper than {} levels", kMaxDepth));
    n->args = std::move(args);
    return n;
  }
  // Counts the parser's own recursion, which descends before any node is made.
  class Nesting {
   public:
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.nesting_ > kMaxDepth) p_.fail(fmt::format("nested deeper than {} levels", kMaxDepth));
    }
    ~Nesting() { --p_.nesting_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };
  NodePtr expr() {
    Nesting nest(*this);
    NodePtr l = term();
    for (;;) {
      if (eat('+'))
        l = make(Expr::Node::kAdd, {l, term()});
      else if (eat('-'))
        l = make(Expr::Node::kSub, {l, term()});
      else
        return l;
    }
  }
  NodePtr term() {
    NodePtr l = unary();
    for (;;) {
      if (eat('*'))
        l = make(Expr::Node::kMul, {l, unary()});
      else if (eat('/'))
        l = make(Expr::Node::kDiv, {l, unary()});
      else
        return l;
    }
  }
  NodePtr unary() {
    if (eat('-')) {
      Nesting nest(*this);
      return make(Expr::Node::kNeg, {unary()});
    }
    return primary();
  }
  NodePtr primary() {
    skip();
    if (i_ >= s_.size()) fail("unexpected end");
    char c = s_[i_];
    if (eat('(')) {
      NodePtr n = expr();
      if (!eat(')')) fail("expected ')'");
      return n;
    }
    if (eat('{')) {
      std::size_t start = i_;
      while (i_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '-'))
        ++i_;
      std::string name = s_.substr(start, i_ - start);
      if (name.empty() || !eat('}')) fail("expected {factor_name}");
      if (std::find(factors_->begin(), factors_->end(), name) == factors_->end()) factors_->push_back(name);
      auto n = std::make_shared<Expr::Node>();
      n->kind = Expr::Node::kFactor;
      n->factor = name;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      double v = std::strtod(begin, &end);
      if (end == begin) fail("bad number");
      i_ += static_cast<std::size_t>(end - begin);
      auto n = std::make_shared<Expr::Node>();
      n->number = v;
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c))) {
      std::size_t start = i_;
      while (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_]))) ++i_;
      std::string fn = s_.substr(start, i_ - start);
      Expr::Node::Kind k;
      if (fn == "min")
        k = Expr::Node::kMin;
      else if (fn == "max")
        k = Expr::Node::kMax;
      else {
        i_ = start;
        fail("unknown name '" + fn + "' (factors are written {name}; functions: min, max)");
      }
      if (!eat('(')) fail("expected '(' after " + fn);
      std::vector<NodePtr> args{expr()};
      while (eat(',')) args.push_back(expr());
      if (!eat(')')) fail("expected ')'");
      return make(k, std::move(args));
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  const std::string& s_;
  std::size_t i_ = 0;
  int nesting_ = 0;
  std::vector<std::string>* factors_;
};

double eval_node(const Expr::Node& n, const Sample& s) {
  using K = Expr::Node::Kind;
  switch (n.kind) {
    case K::kNumber: return n.number;
    case K::kFactor: return s.numeric(n.factor);
    case K::kAdd: return eval_node(*n.args[0], s) + eval_node(*n.args[1], s);
    case K::kSub: return eval_node(*n.args[0], s) - eval_node(*n.args[1], s);
    case K::kMul: return eval_node(*n.args[0], s) * eval_node(*n.args[1], s);
    case K::kDiv: return eval_node(*n.args[0], s) / eval_node(*n.args[1], s);
    case K::kNeg: return -eval_node(*n.args[0], s);
    case K::kMin:
    case K::kMax: {
      double v = eval_node(*n.args[0], s);
      for (std::size_t i = 1; i < n.args.size(); ++i) {
        double w = eval_node(*n.args[i], s);
        v = n.kind == K::kMin ? std::min(v, w) : std::max(v, w);
      }
      return v;
    }
  }
  return 0;
}

}  // namespace

Expr::Expr() : text_("0"), root_(std::make_shared<Node>()) {}

Expr Expr::constant(double v) {
  Expr e;
  auto n = std::make_shared<Node>();
  n->number = v;
  e.root_ = n;
  e.text_ = format_number(v);
  return e;
}

Expr Expr::parse(const std::string& text) {
  Expr e;
  e.text_ = text;
  Parser p(text, &e.factors_);
  e.root_ = p.parse();
  return e;
}

double Expr::eval(const Sample& sample) const { return eval_node(*root_, sample); }

}  // namespace wb
