// Nothing outlives its controller (DESIGN.md "Security and failure"): `workbench peak` killed
// with SIGKILL at random moments after its SUT is up — on configs/demo.toml (refserver and wbload
// on this machine) and on a host reached through a real sshd — leaves nothing running 5 s later,
// and the next run on the same store starts its SUT without "address in use". A run whose guards
// could not act (frozen with SIGSTOP, as in an OOM kill of the whole process tree) leaves its SUT
// running: the next run kills it from the store's record before starting its own. SIGHUP, sent or
// from a terminal that closes, stops a run like Ctrl-C.
//
// The kill moments come from a seeded RNG: the seed is printed, and WB_TEST_SEED replays it.
// WB_ORPHAN_ROUNDS sets the rounds of random kills per test (default: 3 local, 2 over SSH).
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "process_table.hpp"
#include "sshd_fixture.hpp"
#include "testbed_support.hpp"
#include "tests/support/testbed_toml.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

using wb::test::kWorkbench;
constexpr auto kLimit = 5s;  // nothing a killed controller started may live longer than this

std::uint64_t test_seed() {
  if (const char* s = std::getenv("WB_TEST_SEED")) return std::stoull(s);
  return std::random_device{}();
}

// The kill moments of a test, 0-3 s after its SUT is up, from an RNG whose seed is printed.
struct KillMoments {
  std::uint64_t seed = test_seed();
  std::mt19937_64 rng{seed};
  std::uniform_int_distribution<int> ms{0, 3000};

  explicit KillMoments(const char* which) {
    std::printf("peak_orphans %s: seed %llu (WB_TEST_SEED replays it)\n", which,
                static_cast<unsigned long long>(seed));
  }
  int next() { return ms(rng); }
};

int rounds(int fallback) {
  if (const char* s = std::getenv("WB_ORPHAN_ROUNDS")) return std::stoi(s);
  return fallback;
}

long long ms(Clock::duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

int count(const fs::path& store, const std::string& where) {
  return std::atoi(wb::test::query(store, "SELECT count(*) FROM processes " + where).c_str());
}

// Waits until `ready` holds or `limit` passes; returns whether it held.
template <typename F>
bool wait_for(F ready, Clock::duration limit) {
  const auto until = Clock::now() + limit;
  while (!ready()) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// A `workbench peak` run whose processes (and the controller itself) carry a fresh marker in
// their environment.
struct PeakRun {
  std::string marker = wb::test::make_marker();
  std::unique_ptr<wb::test::ChildProcess> child;

  explicit PeakRun(const std::vector<std::string>& argv) {
    ::setenv("WB_ORPHAN_TEST_MARK", marker.c_str(), 1);
    child = std::make_unique<wb::test::ChildProcess>(argv);
  }
  // Sends `sig` (SIGINT or SIGHUP), which must stop the controller like Ctrl-C (exit 130).
  void stop_with(int sig) {
    child->send_signal(sig);
    const auto code = child->wait_exit(30s);
    REQUIRE(code.has_value());
    CHECK(*code == 130);
  }
  // The controller's stderr after it exited, with the verdict on "address in use".
  std::string finish_stderr() {
    std::string err = child->drain_stderr();
    CHECK(err.find("in use") == std::string::npos);
    return err;
  }
};

// The live processes named `comm` that carry `marker`.
std::vector<pid_t> named(const std::string& comm, const std::string& marker) {
  return wb::test::pids_named(comm, marker);
}

}  // namespace

TEST_CASE(
    "kill -9 of peak on configs/demo.toml at random moments leaves nothing, and the next run starts clean") {
  KillMoments moments("local");
  INFO("seed " << moments.seed);
  fs::path dir = wb::test::fresh_dir("orphans_local");
  fs::path store = dir / "demo.db";
  const std::string config = wb::test::shipped_config_copy("demo.toml", dir, wb::test::free_port());
  const std::vector<std::string> peak{kWorkbench, "peak", "--config", config, "--store", store.string()};

  const int n = rounds(3);
  for (int round = 0; round <= n; ++round) {
    // The last round freezes the guards before the kill: its SUT survives the controller.
    const bool frozen_guards = round == n;
    PeakRun run(peak);
    const auto sut = wb::test::wait_for_process("refserver", run.marker, 15s);
    INFO("round " << round << (frozen_guards ? " (guards frozen)" : ""));
    REQUIRE(sut.has_value());
    const int controller = run.child->pid();
    // Every started process is recorded, owned by this controller.
    CHECK(wait_for([&] { return count(store, fmt::format("WHERE owner_pid = {}", controller)) >= 1; }, 2s));
    CHECK(count(store, fmt::format("WHERE owner_pid != {}", controller)) == 0);  // the dead ones' rows went
    const int moment = moments.next();
    std::this_thread::sleep_for(std::chrono::milliseconds(moment));
    REQUIRE_FALSE(run.child->wait_exit(0ms).has_value());
    if (frozen_guards) {
      for (pid_t g : named("wb-guard", run.marker)) ::kill(g, SIGSTOP);
    }
    run.child->send_signal(SIGKILL);
    REQUIRE(run.child->wait_exit(5s).has_value());
    const auto killed = Clock::now();
    if (!frozen_guards) {
      const auto left = wb::test::survivors_after(run.marker, kLimit);
      std::printf("round %d: killed %d ms after the SUT was up; its processes gone after %lld ms\n", round,
                  moment, ms(Clock::now() - killed));
      CHECK(left.empty());
      run.finish_stderr();
      continue;
    }
    // Frozen guards cannot act: the SUT holds its port until the next run kills it.
    REQUIRE(::kill(*sut, 0) == 0);
    run.finish_stderr();
    PeakRun next(peak);
    const auto next_sut = wb::test::wait_for_process("refserver", next.marker, 15s);
    REQUIRE(next_sut.has_value());
    CHECK(named("refserver", run.marker).empty());  // killed before the new one started (a zombie now)
    CHECK(count(store, fmt::format("WHERE owner_pid = {}", controller)) == 0);
    for (pid_t g : named("wb-guard", run.marker)) ::kill(g, SIGKILL);  // they could never act again
    CHECK(wb::test::survivors_after(run.marker, kLimit).empty());

    // The next run gets a trial under way, then stops cleanly on Ctrl-C with an empty table.
    REQUIRE(wb::test::wait_for_process("wbload", next.marker, 20s).has_value());
    next.stop_with(SIGINT);
    const std::string err = next.finish_stderr();
    INFO(err);
    CHECK_THAT(err, Catch::Contains(fmt::format("workbench: killed pgid {} on local (", *sut)));
    CHECK_THAT(err, Catch::Contains(fmt::format("), left by dead controller ")));
    CHECK_THAT(err, Catch::Contains(fmt::format(":{}\n", controller)));
    CHECK(wb::test::survivors_after(next.marker, kLimit).empty());
    CHECK(count(store, "") == 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("SIGHUP of peak, sent or from a closing terminal, stops it like Ctrl-C and leaves nothing") {
  fs::path dir = wb::test::fresh_dir("orphans_hup");
  fs::path store = dir / "demo.db";
  const std::string config = wb::test::shipped_config_copy("demo.toml", dir, wb::test::free_port());
  const std::vector<std::string> peak{kWorkbench, "peak", "--config", config, "--store", store.string()};

  {  // kill -HUP
    PeakRun run(peak);
    REQUIRE(wb::test::wait_for_process("wbload", run.marker, 20s).has_value());
    run.stop_with(SIGHUP);
    CHECK(wb::test::survivors_after(run.marker, kLimit).empty());
    run.finish_stderr();
    CHECK(wb::test::query(store, "SELECT status FROM searches ORDER BY id DESC") ==
          "interrupted");  // resumable
    CHECK(count(store, "") == 0);
  }
  {  // the terminal goes away: script's pty closes, the kernel hangs up the session
    ::setenv("SHELL", "/bin/sh", 1);
    std::string command;
    for (const auto& word : peak) command += " '" + word + "'";
    PeakRun run({"/usr/bin/script", "-qfec", command, "/dev/null"});
    REQUIRE(wb::test::wait_for_process("wbload", run.marker, 20s).has_value());
    const auto controller = wb::test::wait_for_process("workbench", run.marker, 1s);
    REQUIRE(controller.has_value());
    run.child->send_signal(SIGKILL);  // script dies: the pty's master side closes
    REQUIRE(run.child->wait_exit(5s).has_value());
    CHECK(wb::test::survivors_after(run.marker, kLimit).empty());  // workbench included
    CHECK(wb::test::query(store, "SELECT status FROM searches ORDER BY id DESC") ==
          "interrupted");  // resumable
    CHECK(count(store, "") == 0);
  }
  fs::remove_all(dir);
}

namespace {

// A small refserver testbed on the fixture's "remote" host (as peak_ssh_test.cpp).
std::string ssh_config(const wb::test::SshdFixture& sshd, const fs::path& dir, int port) {
  return wb::test::write_ssh_refserver(dir, "ssh-orphans", sshd, port, "start_rate = 100\nrunlength_s = 2\n");
}

// The programs a run started on the "remote" host: their command lines name the work directory.
std::vector<pid_t> remote_programs(const fs::path& work) { return wb::test::pids_with_marker(work.string()); }

// The process group of `pid` (field 5 of /proc/PID/stat), -1 if it is gone or a zombie. (Read
// with read(2): an ifstream throws when the process exits between open and read.)
long group_of(pid_t pid) {
  const int fd = ::open(fmt::format("/proc/{}/stat", pid).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0) return -1;
  const std::string stat(buf, static_cast<std::size_t>(n));
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 1));
  char state = 0;
  long ppid = 0, pgrp = -1;
  rest >> state >> ppid >> pgrp;
  return state == 'Z' ? -1 : pgrp;
}

// Every live process (zombies aside) in one of `groups`: the programs and their guards.
std::vector<pid_t> members(const std::set<long>& groups) {
  std::vector<pid_t> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (groups.count(group_of(pid)) > 0) out.push_back(pid);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "kill -9 of peak over SSH at random moments leaves nothing on the host, and the next run starts clean") {
  KillMoments moments("ssh");
  INFO("seed " << moments.seed);
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("orphans_ssh");
  fs::path store = dir / "w.db";
  const fs::path work = dir / "work";
  const std::string config = ssh_config(sshd, dir, wb::test::free_port());
  const std::vector<std::string> peak{kWorkbench, "peak", "--config", config, "--store", store.string()};
  const auto refservers = [&] { return wb::test::count_processes((work / "refserver").string()); };

  const int n = rounds(2);
  for (int round = 0; round <= n; ++round) {
    const bool frozen_guards = round == n;  // the remote guards frozen: the next run's cleanup acts
    INFO("round " << round << (frozen_guards ? " (guards frozen)" : ""));
    PeakRun run(peak);
    REQUIRE(wait_for([&] { return refservers() >= 1; }, 30s));
    const int controller = run.child->pid();
    CHECK(wait_for([&] { return count(store, fmt::format("WHERE owner_pid = {}", controller)) >= 1; }, 2s));
    const int moment = moments.next();
    std::this_thread::sleep_for(std::chrono::milliseconds(moment));
    REQUIRE_FALSE(run.child->wait_exit(0ms).has_value());
    // The groups the run started: its programs', which hold their guards too.
    std::set<long> groups;
    for (pid_t pid : remote_programs(work)) groups.insert(group_of(pid));
    groups.erase(-1);
    REQUIRE_FALSE(groups.empty());
    std::vector<pid_t> stopped;
    if (frozen_guards) {
      for (pid_t pid : members(groups)) {
        const std::string comm = wb::test::read_whole(fmt::format("/proc/{}/comm", pid));
        if (comm != "refserver\n" && comm != "wbload\n") {
          ::kill(pid, SIGSTOP);
          stopped.push_back(pid);
        }
      }
      REQUIRE_FALSE(stopped.empty());
    }
    run.child->send_signal(SIGKILL);
    REQUIRE(run.child->wait_exit(5s).has_value());
    const auto killed = Clock::now();
    if (!frozen_guards) {
      const bool gone =
          wait_for([&] { return remote_programs(work).empty() && members(groups).empty(); }, kLimit);
      std::printf("ssh round %d: killed %d ms after the SUT was up; its processes gone after %lld ms\n",
                  round, moment, ms(Clock::now() - killed));
      CHECK(gone);
      run.finish_stderr();
      continue;
    }
    std::this_thread::sleep_for(500ms);
    REQUIRE(refservers() == 1);  // the SUT outlived its controller, as the guards could not act
    run.finish_stderr();
    PeakRun next(peak);
    // A trial of the next run under way: a wbload in none of the dead run's groups.
    const auto new_wbload = [&] {
      for (pid_t pid : wb::test::pids_with_marker((work / "wbload").string())) {
        const long g = group_of(pid);
        if (g > 0 && groups.count(g) == 0) return true;
      }
      return false;
    };
    REQUIRE(wait_for(new_wbload, 30s));
    for (pid_t pid : stopped) ::kill(pid, SIGKILL);
    next.stop_with(SIGINT);
    const std::string err = next.finish_stderr();
    INFO(err);
    CHECK_THAT(err, Catch::Contains(fmt::format("workbench: killed pgid ")));
    CHECK_THAT(err, Catch::Contains(fmt::format(":{}\n", controller)));
    CHECK(wait_for([&] { return remote_programs(work).empty() && members(groups).empty(); }, kLimit));
    CHECK(count(store, "") == 0);
  }
  fs::remove_all(dir);
}
