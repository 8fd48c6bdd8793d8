// SshExecutor's shells started ahead (remote_command.hpp waiting_shell) against a real OpenSSH
// sshd on a loopback port: they wait under the fixture's sshd, are replaced when killed, exit with
// the executor, and are not started with shell_ahead off.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <csignal>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/ssh_executor.hpp"
#include "process_table.hpp"
#include "ssh_test_options.hpp"
#include "sshd_fixture.hpp"

using namespace std::chrono_literals;
using wb::test::options_for;
using wb::test::sh;
using wb::test::SshdFixture;

namespace {

// The waiting shells (remote_command.hpp) that this fixture's sshd runs: processes under its
// listener whose command line is waiting_shell().
std::vector<pid_t> waiting_shells(const SshdFixture& sshd) {
  auto parent_of = [](pid_t pid) -> pid_t {
    const std::string stat = wb::test::read_whole("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    return ppid;
  };
  std::vector<pid_t> shells;
  for (pid_t pid : wb::test::pids_with_marker("IFS= read -r wb_line")) {
    for (pid_t p = parent_of(pid); p > 1; p = parent_of(p)) {
      if (p == sshd.listener_pid()) {
        shells.push_back(pid);
        break;
      }
    }
  }
  return shells;
}

// Waits up to 5 s for exactly `count` waiting shells; returns those there are then.
std::vector<pid_t> wait_for_waiting_shells(const SshdFixture& sshd, std::size_t count) {
  const auto until = std::chrono::steady_clock::now() + 5s;
  auto shells = waiting_shells(sshd);
  while (shells.size() != count && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(20ms);
    shells = waiting_shells(sshd);
  }
  return shells;
}

}  // namespace

TEST_CASE(
    "ssh: shells wait ahead for the next commands, are replaced when killed on the host, and none outlives "
    "us") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  CHECK(ex->run(sh("echo 1")).out == "1\n");
  // A command long enough for the spares' opens and execs to be answered while it runs.
  CHECK(ex->run(sh("sleep 0.3; echo 2")).out == "2\n");
  std::vector<pid_t> shells = wait_for_waiting_shells(sshd, 2);
  REQUIRE(shells.size() == 2);
  // Killed before their commands come: a command finds its shell gone (or sees it end without a
  // word) and runs on a channel of its own — on the same connection.
  for (pid_t pid : shells) REQUIRE(::kill(pid, SIGKILL) == 0);
  REQUIRE(wait_for_waiting_shells(sshd, 0).empty());
  const auto r = ex->run(sh("echo 3; echo err >&2; exit 4"));
  CHECK(r.out == "3\n");
  CHECK(r.err == "err\n");
  CHECK(r.exit_status == 4);
  CHECK(ex->run(sh("sleep 0.3; echo 5")).out == "5\n");
  CHECK(ex->connections() == 1);
  // The executor gone, its waiting shells read EOF and exit without running anything.
  REQUIRE(wait_for_waiting_shells(sshd, 2).size() == 2);
  ex.reset();
  CHECK(wait_for_waiting_shells(sshd, 0).empty());
}

TEST_CASE("ssh: with shell_ahead off no shell waits ahead, and commands run the same") {
  SshdFixture sshd;
  auto o = options_for(sshd);
  o.shell_ahead = false;
  auto ex = wb::make_ssh_executor(o);
  for (int i = 0; i < 3; ++i)
    CHECK(ex->run(sh(fmt::format("sleep 0.1; echo {}", i))).out == fmt::format("{}\n", i));
  CHECK(waiting_shells(sshd).empty());
}
