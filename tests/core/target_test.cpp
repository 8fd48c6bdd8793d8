#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/target.hpp"

using wb::InputError;
using wb::Target;

TEST_CASE("target parses confidence/accuracy in percent") {
  Target t = Target::parse("95/90");
  CHECK(t.confidence == Approx(0.95));
  CHECK(t.accuracy == Approx(0.90));
  CHECK(t.to_string() == "95/90");
  Target u = Target::parse("99.5/97.5");
  CHECK(u.confidence == Approx(0.995));
  CHECK(u.accuracy == Approx(0.975));
}

TEST_CASE("target rejects malformed and out-of-range values with a clear message") {
  for (const char* bad : {"", "95", "95/", "/90", "95/90/1", "a/90", "95/9x", "0/90", "95/0", "100/90",
                          "95/100", "-5/90", "95/-1", "inf/90", "nan/90"}) {
    INFO(bad);
    CHECK_THROWS_AS(Target::parse(bad), InputError);
  }
  CHECK_THROWS_WITH(Target::parse("100/90"), Catch::Contains("less than 100"));
  CHECK_THROWS_WITH(Target::parse("95"), Catch::Contains("e.g. 95/90"));
}
