// The numeric flag checks shared by workbench and wbload: what CLI11's Range lets through (NaN,
// infinities, overflow, "-1" into an unsigned) is refused; a good number reaches the variable.
#include "core/cli_numbers.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

// Parses `--x VALUE` into `out`; returns the error text, empty when accepted.
template <typename T>
std::string parse(const std::string& value, T& out, const CLI::Validator& v, bool transform) {
  CLI::App app;
  auto* opt = app.add_option("--x", out);
  if (transform)
    opt->transform(v);
  else
    opt->check(v);
  std::vector<std::string> args{value, "--x"};  // CLI11 takes a vector last argument first
  try {
    app.parse(args);
    return "";
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("finite_number refuses NaN, infinities, overflow and values out of range") {
  double d = 0;
  for (const char* bad :
       {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999", "0", "-5", "2e8", "", "5x", "0x10", "+"}) {
    INFO(bad);
    CHECK_THAT(parse(bad, d, wb::cli::finite_number(0, 1e8, true), false), Catch::StartsWith("--x: '"));
  }
  CHECK(parse("2.5", d, wb::cli::finite_number(0, 1e8, true), false).empty());
  CHECK(d == 2.5);
  CHECK(parse("0", d, wb::cli::finite_number(0, 1e8), false).empty());
  CHECK(parse("1e8", d, wb::cli::finite_number(0, 1e8), false).empty());
  CHECK_THAT(parse("nan", d, wb::cli::finite_number(0, 1e8), false),
             Catch::Equals("--x: 'nan' is not a finite number in [0, 1e+08]"));
}

TEST_CASE("whole_number refuses overflow and fractions, and reads decimal") {
  int i = 0;
  for (const char* bad : {"4294967297", "-4294967297", "1.5", "1e3", "nan", "0", "101", "", "0x10"}) {
    INFO(bad);
    CHECK_THAT(parse(bad, i, wb::cli::whole_number(1, 100), true), Catch::StartsWith("--x: '"));
  }
  CHECK(parse("010", i, wb::cli::whole_number(1, 100), true).empty());
  CHECK(i == 10);  // CLI11 alone reads "010" as octal 8
  std::int64_t big = 0;
  CHECK_FALSE(parse("9223372036854775808", big, wb::cli::whole_number(1, INT64_MAX), true).empty());
  CHECK(parse("9223372036854775807", big, wb::cli::whole_number(1, INT64_MAX), true).empty());
  CHECK(big == INT64_MAX);
}

TEST_CASE("seed_number takes 0 to 2^64-1 and nothing else") {
  std::uint64_t s = 0;
  for (const char* bad : {"-1", "18446744073709551616", "1.5", "nan", "", "+1"}) {
    INFO(bad);
    CHECK_FALSE(parse(bad, s, wb::cli::seed_number(), true).empty());
  }
  CHECK(parse("18446744073709551615", s, wb::cli::seed_number(), true).empty());
  CHECK(s == UINT64_MAX);
  CHECK(parse("0", s, wb::cli::seed_number(), true).empty());
  CHECK(s == 0);
}
