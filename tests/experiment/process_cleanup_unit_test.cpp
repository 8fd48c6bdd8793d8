// Which recorded process groups the next controller kills: the owner's state, judged without
// processes (process_cleanup.hpp). The kills themselves: process_cleanup_test.cpp.
#include <stdlib.h>
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "experiment/process_cleanup.hpp"

using namespace wb;
using namespace std::chrono_literals;

namespace {

store::Store::ProcessRow row(const std::string& host, const std::string& owner_host,
                             std::int64_t started_at) {
  store::Store::ProcessRow r;
  r.testbed = "demo";
  r.host = host;
  r.pgid = 1234;
  r.start_ticks = 555;
  r.command = "refserver --port 5000";
  r.owner = OwnerId{owner_host, 4321, 777};
  r.started_at = started_at;
  return r;
}

}  // namespace

TEST_CASE("an owner on this machine is judged by its pid and start time, whatever the row's age") {
  const CleanupOptions o;
  OwnerId asked;
  const auto alive = [&](const OwnerId& id) {
    asked = id;
    return true;
  };
  const auto dead = [](const OwnerId&) { return false; };
  CHECK(judge_owner(row("local", "me", 0), "me", 1'000'000, o, alive) == OwnerState::kAlive);
  CHECK(asked == OwnerId{"me", 4321, 777});
  CHECK(judge_owner(row("local", "me", 999'999), "me", 1'000'000, o, dead) == OwnerState::kDead);
  CHECK(judge_owner(row("root@h:22", "me", 999'999), "me", 1'000'000, o, dead) == OwnerState::kDead);
  CHECK(judge_owner(row("root@h:22", "me", 0), "me", 1'000'000, o, alive) == OwnerState::kAlive);
}

TEST_CASE("an owner on another machine is alive until its row is older than the timeout") {
  CleanupOptions o;
  o.foreign_owner_timeout = 3600s;
  const auto never = [](const OwnerId&) -> bool {
    FAIL("another machine's pid was looked up here");
    return false;
  };
  const std::int64_t now = 1'000'000;
  CHECK(judge_owner(row("root@h:22", "other", now - 3599), "me", now, o, never) == OwnerState::kAlive);
  CHECK(judge_owner(row("root@h:22", "other", now - 3600), "me", now, o, never) == OwnerState::kDead);
  // Its "local" is its own machine: never reachable from here, however old.
  CHECK(judge_owner(row("local", "other", now - 3599), "me", now, o, never) == OwnerState::kUnreachable);
  CHECK(judge_owner(row("local", "other", 0), "me", now, o, never) == OwnerState::kUnreachable);
}

TEST_CASE("WB_FOREIGN_OWNER_TIMEOUT_S sets the timeout, and anything but whole seconds is refused") {
  ::unsetenv("WB_FOREIGN_OWNER_TIMEOUT_S");
  CHECK(cleanup_options_from_env().foreign_owner_timeout == std::chrono::seconds(24 * 3600));
  ::setenv("WB_FOREIGN_OWNER_TIMEOUT_S", "90", 1);
  CHECK(cleanup_options_from_env().foreign_owner_timeout == 90s);
  for (const char* bad : {"1.5", "-3", "ten", "9x"}) {
    ::setenv("WB_FOREIGN_OWNER_TIMEOUT_S", bad, 1);
    CHECK_THROWS_AS(cleanup_options_from_env(), InputError);
  }
  ::unsetenv("WB_FOREIGN_OWNER_TIMEOUT_S");
}
