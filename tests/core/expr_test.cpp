#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/expr.hpp"

using wb::Expr;
using wb::Sample;

TEST_CASE("expressions evaluate over factor values") {
  Sample s;
  s.set("disks", "3");
  s.set("threads", "16");
  CHECK(Expr::parse("{disks}").eval(s) == 3);
  CHECK(Expr::parse("2*{threads} + 1").eval(s) == 33);
  CHECK(Expr::parse("min({threads}, 8) / 2").eval(s) == 4);
  CHECK(Expr::parse("max(1, {disks} - 5)").eval(s) == 1);
  CHECK(Expr::parse("-(1 + {disks}) * 2").eval(s) == -8);
  CHECK(Expr::parse("0.5").is_constant());
  auto e = Expr::parse("{disks} * {threads} + {disks}");
  REQUIRE(e.factors() == std::vector<std::string>{"disks", "threads"});
}

TEST_CASE("malformed expressions are input errors that say where") {
  CHECK_THROWS_AS(Expr::parse("{disks"), wb::InputError);
  CHECK_THROWS_AS(Expr::parse("2 +"), wb::InputError);
  CHECK_THROWS_WITH(Expr::parse("sqrt(4)"), Catch::Contains("unknown name 'sqrt'"));
  CHECK_THROWS_WITH(Expr::parse("1 2"), Catch::Contains("column 3"));
}

TEST_CASE("evaluating with a missing factor is an error") {
  CHECK_THROWS_AS(Expr::parse("{nope}").eval(Sample()), wb::Error);
}

// 50,000 nested parentheses (or 100,000 unary minuses, or a sum of a million terms) overflowed the
// stack while parsing, evaluating or freeing the expression.
TEST_CASE("deeply nested expressions are input errors, not stack overflows") {
  std::string sum = "1";
  for (int i = 0; i < 1000000; ++i) sum += "+1";
  for (const std::string& text :
       {std::string(100000, '(') + "1" + std::string(100000, ')'), std::string(100000, '-') + "1", sum,
        "min(" + std::string(100000, '(') + "1)"}) {
    CHECK_THROWS_WITH(Expr::parse(text), Catch::Contains("nested deeper than 256 levels"));
  }
  // As deep as allowed still parses and evaluates.
  std::string deep = std::string(200, '(') + "2" + std::string(200, ')');
  CHECK(Expr::parse(deep).eval(Sample()) == 2);
  std::string terms = "1";
  for (int i = 0; i < 200; ++i) terms += "+1";
  CHECK(Expr::parse(terms).eval(Sample()) == 201);
}
