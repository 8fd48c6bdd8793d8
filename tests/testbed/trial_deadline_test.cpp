// A trial past its deadline, through the real trial runner (`workbench trial`): the trial fails with
// an error that names the deadline, and no process it started remains — on this machine and on a
// host reached over SSH (a real sshd, the fixture). Two deadlines bound a trial: the SUT must be
// ready within [sut] ready_timeout_s, and each generator must finish within warm-up + runlength +
// timeout_s + deadline_slack_s. A real wbload that hangs (frozen with SIGSTOP, as on a host that
// stops scheduling it) passes the second; a SUT that sleeps before it starts passes the first.
#include <signal.h>
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <stdlib.h>

#include <fstream>
#include <optional>
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

// The generator's deadline in these configs: warm-up 0.2 + runlength 1 + timeout_s 1 + slack 1.
constexpr double kGeneratorDeadlineS = 3.2;

// A refserver testbed on one host ("box"): this machine, or the fixture's sshd when `sshd` is set.
// `sut` is the [sut] start line and anything after it.
std::string write_config(const fs::path& dir, const wb::test::SshdFixture* sshd, const std::string& sut) {
  wb::test::RefserverTestbed t{
      .name = "deadline-test", .threads = 2, .disks = 0, .peak = "runlength_s = 1\n"};
  t.hosts = {sshd != nullptr ? wb::test::ssh_host("box", *sshd, dir / "work") : "name = \"box\"\n"};
  t.sut_host = "box";
  t.port = wb::test::free_port();
  t.sut = sut;
  t.load_hosts = {"box"};
  t.workload = "warmup_s = 0.2\ntimeout_s = 1\ndeadline_slack_s = 1\n";
  return wb::test::write_testbed(dir / "deadline.toml", t);
}

const std::string kRefserverStart = wb::test::refserver_start("1", "0.1", "1") + "\n";

// Every local process started from here on (workbench and what it runs here) carries the marker.
std::string mark_children() {
  std::string marker = wb::test::make_marker();
  ::setenv("WB_DEADLINE_TEST_MARK", marker.c_str(), 1);
  return marker;
}

struct Outcome {
  int exit_code = -1;
  std::string err;
  double seconds_after_freeze = 0;
};

// Runs `workbench trial` on `config`, freezes its wbload (found by `wbload_marker`) with SIGSTOP
// as soon as it runs, and waits for workbench to give up.
Outcome trial_with_frozen_generator(const std::string& config, const fs::path& store,
                                    const std::string& wbload_marker) {
  wb::test::ChildProcess child({kWorkbench, "trial", "--config", config, "--store", store.string(), "--rate",
                                "50", "--runlength", "1", "--trials", "2"});
  // The trial's wbload, not the `wbload --version` that checks an upload first (over SSH it
  // carries the same folder as its marker).
  std::optional<pid_t> wbload;
  for (const auto until = Clock::now() + 30s; !wbload && Clock::now() < until;) {
    wbload = wb::test::wait_for_process("wbload", wbload_marker, 30s);
    if (wbload &&
        wb::test::read_whole(fs::path("/proc") / std::to_string(*wbload) / "cmdline").find("--version") !=
            std::string::npos) {
      wbload.reset();
      std::this_thread::sleep_for(20ms);
    }
  }
  REQUIRE(wbload.has_value());
  REQUIRE(::kill(*wbload, SIGSTOP) == 0);
  const auto frozen = Clock::now();
  auto code = child.wait_exit(60s);
  REQUIRE(code.has_value());
  Outcome o;
  o.exit_code = *code;
  o.err = child.drain_stderr();
  o.seconds_after_freeze = std::chrono::duration<double>(Clock::now() - frozen).count();
  return o;
}

void check_generator_deadline_error(const Outcome& o, const fs::path& store) {
  INFO(o.err);
  CHECK(o.exit_code == 1);
  CHECK_THAT(o.err,
             Catch::Contains("workbench: wbload on box passed the trial's deadline: still running 3.2 s "
                             "after its start (warm-up 0.2 + runlength 1 + timeout_s 1 + "
                             "deadline_slack_s 1); its process group was killed"));
  // Not before the deadline, and not much after it (SIGTERM, which a frozen process holds, then
  // SIGKILL after the 2 s grace).
  CHECK(o.seconds_after_freeze < kGeneratorDeadlineS + 8);
  CHECK_THAT(wb::test::query(store, "SELECT message FROM searches"),
             Catch::Contains("passed the trial's deadline"));
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "0");
}

}  // namespace

TEST_CASE("a generator past its deadline on this machine fails the trial and leaves nothing running") {
  fs::path dir = wb::test::fresh_dir("deadline_local");
  const std::string marker = mark_children();
  std::string config = write_config(dir, nullptr, kRefserverStart);
  const auto t0 = Clock::now();
  Outcome o = trial_with_frozen_generator(config, dir / "w.db", marker);
  CHECK(Clock::now() - t0 >= std::chrono::duration<double>(kGeneratorDeadlineS));
  check_generator_deadline_error(o, dir / "w.db");
  // workbench, refserver and the frozen wbload are all gone.
  CHECK(wb::test::survivors_after(marker).empty());
  fs::remove_all(dir);
}

TEST_CASE("a generator past its deadline over SSH fails the trial and leaves nothing on the host") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("deadline_ssh");
  const std::string marker = mark_children();
  std::string config = write_config(dir, &sshd, kRefserverStart);
  // Remote commands do not inherit this process's environment: they are known by the folder their
  // programs were uploaded to.
  const std::string remote = (dir / "work").string();
  const auto t0 = Clock::now();
  Outcome o = trial_with_frozen_generator(config, dir / "w.db", remote);
  CHECK(Clock::now() - t0 >= std::chrono::duration<double>(kGeneratorDeadlineS));
  check_generator_deadline_error(o, dir / "w.db");
  CHECK(wb::test::survivors_after(remote).empty());  // refserver and wbload on the host
  CHECK(wb::test::survivors_after(marker).empty());  // workbench here
  fs::remove_all(dir);
}

// The SUT sleeps before it starts: it never prints "ready" within ready_timeout_s.
std::string sleepy_sut(const std::string& marker) {
  return fmt::format(
      "start = '''env WB_DEADLINE_SUT={} sh -c 'sleep 600; exec \"$0\" \"$@\"' {{refserver}} --port {{port}} "
      "--threads {{threads}} --disks 1'''\nready = \"line\"\nready_timeout_s = 1\n",
      marker);
}

void check_ready_deadline(const std::string& config, const fs::path& store, const std::string& sut_marker) {
  const auto t0 = Clock::now();
  wb::test::ChildProcess child({kWorkbench, "trial", "--config", config, "--store", store.string(), "--rate",
                                "50", "--runlength", "1", "--trials", "2"});
  CHECK(wb::test::wait_for_process("sleep", sut_marker, 10s).has_value());  // the marker does reach the SUT
  auto code = child.wait_exit(60s);
  REQUIRE(code.has_value());
  const auto took = Clock::now() - t0;
  const std::string err = child.drain_stderr();
  INFO(err);
  CHECK(*code == 1);
  CHECK_THAT(err, Catch::Contains("workbench: SUT on box was not ready within 1 s (no line starting with "
                                  "'ready' on stdout)"));
  CHECK(took >= 1s);
  CHECK(took < 15s);
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "0");
  CHECK(wb::test::survivors_after(sut_marker).empty());  // sh and its sleep
}

TEST_CASE("a SUT not ready by its deadline on this machine fails the trial and its sleep is killed") {
  fs::path dir = wb::test::fresh_dir("ready_local");
  const std::string marker = mark_children();
  std::string config = write_config(dir, nullptr, sleepy_sut(marker));
  check_ready_deadline(config, dir / "w.db", marker);
  fs::remove_all(dir);
}

TEST_CASE("a SUT not ready by its deadline over SSH fails the trial and its sleep is killed on the host") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("ready_ssh");
  const std::string marker = mark_children();
  std::string config = write_config(dir, &sshd, sleepy_sut(marker));
  // The marker reaches the remote processes through the start template's `env`.
  check_ready_deadline(config, dir / "w.db", marker);
  CHECK(wb::test::survivors_after((dir / "work").string()).empty());
  fs::remove_all(dir);
}

TEST_CASE("deadline_slack_s must be a positive number of seconds, named with file, line and key") {
  fs::path dir = wb::test::fresh_dir("deadline_config");
  std::string config = write_config(dir, nullptr, kRefserverStart);
  std::string text = wb::test::read_whole(config);
  for (const char* bad : {"0", "-1", "inf"}) {
    std::string edited = text;
    edited.replace(edited.find("deadline_slack_s = 1"), 20, std::string("deadline_slack_s = ") + bad);
    std::ofstream(config) << edited;
    auto r = wb::test::run_to_exit({kWorkbench, "trial", "--config", config, "--store",
                                    (dir / "w.db").string(), "--rate", "50", "--trials", "2"},
                                   30s);
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(config +
                                      ":29:workload.deadline_slack_s: must be a positive number of seconds"));
    CHECK_FALSE(fs::exists(dir / "w.db"));  // checked before anything ran
  }
  fs::remove_all(dir);
}
