// Nothing outlives its controller, on this machine (DESIGN.md "Security and failure"): a stand-in
// controller (guard_probe) starts a process tree through LocalExecutor and is SIGKILLed; the
// tree and its guard are gone within the kill grace. A normal stop leaves no guard behind. And
// kill_recorded_group, which the next controller uses: a reused process group id is never killed.
#include <signal.h>
#include <stdlib.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include "command_specs.hpp"
#include "harness/local_executor.hpp"
#include "harness/process_identity.hpp"
#include "harness/process_registry.hpp"
#include "process_table.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using wb::test::kProcessTree;

namespace {

const std::string kProbe = std::string(WB_BINARY_DIR) + "/tests/harness/guard_probe";

// The guards that are children of this process (comm "wb-guard").
std::vector<pid_t> my_guards() {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = wb::test::read_whole(entry.path() / "stat");
    const auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    if (stat.substr(open + 1, close - open - 1) != "wb-guard") continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == ::getpid()) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// Starts guard_probe with a fresh marker in its environment (and so in everything it starts),
// waits for its first line and for the marked sleeps, SIGKILLs it and returns how long the
// marked processes took to vanish (or fails the test if they did not within 5 s).
std::chrono::milliseconds kill_probe(const std::vector<std::string>& probe_args, const std::string& ready) {
  const std::string marker = wb::test::make_marker();
  ::setenv("WB_GUARD_TEST_MARK", marker.c_str(), 1);
  std::vector<std::string> argv{kProbe};
  argv.insert(argv.end(), probe_args.begin(), probe_args.end());
  wb::test::ChildProcess probe(argv);
  const auto line = probe.read_stdout_line(10s);
  if (!line) {
    probe.send_signal(SIGKILL);
    probe.wait_exit(5s);
    FAIL("guard_probe said nothing: " << probe.drain_stderr());
  }
  CHECK_THAT(*line, Catch::StartsWith(ready));
  // The tree is up: three sleeps (one under a shell that ignores SIGTERM).
  const auto until = Clock::now() + 10s;
  while (wb::test::pids_named("sleep", marker).size() < 3 && Clock::now() < until)
    std::this_thread::sleep_for(10ms);
  REQUIRE(wb::test::pids_named("sleep", marker).size() == 3);
  REQUIRE(wb::test::pids_named("wb-guard", marker).size() == 1);

  const auto killed = Clock::now();
  probe.send_signal(SIGKILL);
  REQUIRE(probe.wait_exit(5s));
  const auto left = wb::test::survivors_after(marker, 5s);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed);
  CHECK(left.empty());
  return took;
}

}  // namespace

TEST_CASE("local: a started process tree and its guard die with a SIGKILLed controller") {
  const auto took = kill_probe({"local", "start", "/bin/sh", "-c", kProcessTree}, "started ");
  // SIGTERM ends two sleeps at once; the one that ignores it waits for the SIGKILL after the
  // default 2 s grace.
  CHECK(took < 4s);
  std::printf("local start: gone %lld ms after the SIGKILL\n", static_cast<long long>(took.count()));
}

TEST_CASE("local: a run() command dies with a SIGKILLed controller too") {
  const auto took = kill_probe({"local", "run", "/bin/sh", "-c", kProcessTree}, "running");
  CHECK(took < 4s);
}

TEST_CASE("local: stop, a finished command and a program that cannot run leave no guard behind") {
  auto ex = wb::make_local_executor();
  REQUIRE(my_guards().empty());
  {
    auto p = ex->start({{"/bin/sh", "-c", kProcessTree}, {}, {}, 0ms});
    REQUIRE(p->read_line(10s) == std::optional<std::string>("started"));
    CHECK(my_guards().size() == 1);
    CHECK(p->group().pgid > 1);
    CHECK(p->group().start_ticks == wb::process_start_ticks(static_cast<pid_t>(p->group().pgid)));
    p->stop(200ms);
  }
  CHECK(my_guards().empty());
  {
    auto p = ex->start({{"/bin/sh", "-c", "echo done"}, {}, {}, 0ms});
    REQUIRE(p->wait(10s));
  }
  CHECK(my_guards().empty());
  CHECK(ex->run({{"true"}, {}, {}, 10s}).ok());
  CHECK(ex->run({{"wb-no-such-program"}, {}, {}, 10s}).exit_status == 127);
  CHECK(ex->start({{"wb-no-such-program"}, {}, {}, 0ms})->group().pgid == -1);
  CHECK(my_guards().empty());
}

TEST_CASE("kill_recorded_group: a reused id is left alone, the recorded group is killed, then it is gone") {
  auto ex = wb::make_local_executor();
  const std::string marker = wb::test::make_marker();
  auto p = ex->start({{"/bin/sh", "-c", kProcessTree}, {{"WB_TEST_MARKER", marker}}, {}, 0ms});
  REQUIRE(p->read_line(10s) == std::optional<std::string>("started"));
  const wb::ProcessGroup g = p->group();
  REQUIRE(g.start_ticks > 0);

  // Another start time under the same id: a process that reused it, not ours.
  CHECK(wb::kill_recorded_group(*ex, g.pgid, g.start_ticks + 1, 200ms) == wb::RecordedGroupFate::kReused);
  CHECK_FALSE(p->wait(200ms));
  CHECK(wb::test::pids_named("sleep", marker).size() == 3);
  // No start time recorded: it cannot be told from a stranger's.
  CHECK(wb::kill_recorded_group(*ex, g.pgid, 0, 200ms) == wb::RecordedGroupFate::kGone);
  CHECK(wb::test::pids_named("sleep", marker).size() == 3);

  CHECK(wb::kill_recorded_group(*ex, g.pgid, g.start_ticks, 200ms) == wb::RecordedGroupFate::kKilled);
  CHECK(wb::test::survivors_after(marker, 2s).empty());  // the SIGTERM-proof one got SIGKILL
  const auto r = p->wait(5s);
  REQUIRE(r);
  CHECK(r->exit_signal == std::optional<std::string>("TERM"));
  CHECK(wb::kill_recorded_group(*ex, g.pgid, g.start_ticks, 200ms) == wb::RecordedGroupFate::kGone);
}
