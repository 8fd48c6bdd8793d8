// [sut] ready = "command": the SUT counts as ready once a command run on its host exits 0 —
// checked with the real refserver and wbload through RealTrialRunner, plus the config checks.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/config.hpp"
#include "core/error.hpp"
#include "harness/real_trial_runner.hpp"
#include "harness/testbed_config.hpp"
#include "process_table.hpp"
#include "tests/support/testbed_toml.hpp"
#include "tests/support/workbench_cli.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

fs::path fresh_dir(const std::string& name) { return wb::test::temp_dir("ready", name); }

// A one-host testbed ("box", this machine) whose [sut] section is `sut` (start included).
std::string write_config(const fs::path& dir, const std::string& sut, int port) {
  wb::test::RefserverTestbed t{.name = "ready-test", .threads = 2, .disks = 0, .peak = "runlength_s = 1\n"};
  t.hosts = {"name = \"box\"\n"};
  t.sut_host = "box";
  t.port = port;
  t.sut = sut;
  t.load_hosts = {"box"};
  t.workload = "warmup_s = 0.2\ntimeout_s = 2\n";
  return wb::test::write_testbed(dir / "ready.toml", t);
}

wb::RealRunnerOptions options() {
  wb::RealRunnerOptions o;
  o.programs.wbload = std::string(WB_BINARY_DIR) + "/workloads/wbload";
  o.programs.refserver = std::string(WB_BINARY_DIR) + "/sut/refserver";
  return o;
}

const std::string kRefserver = wb::test::refserver_command("1", "0.1", "1");

// [sut] lines: start = `start`, ready when `command` exits 0, within `timeout_s`.
std::string ready_by_command(const std::string& start, const std::string& command, int timeout_s) {
  return "start = \"" + start + "\"\nready = \"command\"\nready_command = \"" + command +
         "\"\nready_timeout_s = " + std::to_string(timeout_s) + "\n";
}

// Every process the test starts from here on inherits the marker, so survivors can be found.
std::string mark_children() {
  std::string marker = wb::test::make_marker();
  ::setenv("WB_READY_TEST_MARK", marker.c_str(), 1);
  return marker;
}

std::string load_error(const fs::path& dir, const std::string& sut) {
  std::string file = write_config(dir, sut, 7400);
  try {
    wb::Config config = wb::Config::load(file);
    (void)wb::parse_testbed(config);
  } catch (const wb::InputError& e) {
    return e.what();
  }
  return "";
}

// One trial on a fresh runner for config `file` that is expected to fail: the error's text and
// how long the attempt took (the runner, and whatever it started, is gone when this returns).
struct Failed {
  std::string message;
  Clock::duration took{};
};
Failed failed_trial(const std::string& file) {
  wb::Config config = wb::Config::load(file);
  Failed f;
  const auto t0 = Clock::now();
  {
    wb::RealTrialRunner runner(config, wb::parse_testbed(config), options());
    try {
      runner.run(config.default_sample(), 100, 1, 0);
      f.message = "the trial ran";
    } catch (const wb::Error& e) {
      f.message = e.what();
    }
  }
  f.took = Clock::now() - t0;
  return f;
}

}  // namespace

TEST_CASE("ready command: polled on the SUT's host until it exits 0, then the trial runs") {
  fs::path dir = fresh_dir("poll");
  const std::string marker = mark_children();
  const int port = wb::test::free_port();
  // refserver starts a second late; the probe (bash's /dev/tcp) fails until its port accepts. Had
  // the runner not waited for it, wbload would meet a closed port and count errors.
  std::string file =
      write_config(dir, "start = '''sh -c 'sleep 1 && exec \"$0\" \"$@\"' " + kRefserver + R"('''
ready = "command"
ready_command = "bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0' {port}"
ready_interval_s = 0.1
ready_timeout_s = 10
)",
                   port);
  wb::Config config = wb::Config::load(file);
  wb::TestbedConfig tb = wb::parse_testbed(config);
  REQUIRE(tb.sut.ready == wb::ReadyKind::kCommand);
  {
    wb::RealTrialRunner runner(config, tb, options());
    const auto t0 = Clock::now();
    wb::TrialResult t = runner.run(config.default_sample(), 100, 1, 0);
    CHECK(Clock::now() - t0 >= 2s);  // the start's second, the warm-up and the runlength
    CHECK(t.completed >= 80);
    CHECK(t.errors == 0);
  }
  CHECK(wb::test::survivors_after(marker).empty());
  fs::remove_all(dir);
}

TEST_CASE(
    "ready command: past the deadline the error names the host and the command, and the SUT is stopped") {
  fs::path dir = fresh_dir("timeout");
  const std::string marker = mark_children();
  Failed f = failed_trial(write_config(
      dir, ready_by_command(kRefserver, "test -e {config_dir}/never-there", 1), wb::test::free_port()));
  INFO(f.message);
  CHECK_THAT(f.message, Catch::Contains("SUT on box was not ready within 1 s"));
  CHECK_THAT(f.message, Catch::Contains("the ready command `test -e " + dir.string() + "/never-there`"));
  CHECK_THAT(f.message, Catch::Contains("last: exit 1"));
  CHECK_THAT(f.message, Catch::Contains("ready_timeout_s"));
  CHECK(f.took >= 1s);
  CHECK(f.took < 4s);
  CHECK(wb::test::survivors_after(marker).empty());  // refserver was started, and stopped
  fs::remove_all(dir);
}

TEST_CASE("ready command: a SUT that exits while the command fails is reported at once") {
  fs::path dir = fresh_dir("exits");
  Failed f = failed_trial(write_config(
      dir, ready_by_command("sh -c 'echo no disks >&2; exit 3'", "false", 10), wb::test::free_port()));
  INFO(f.message);
  CHECK_THAT(f.message, Catch::Contains("SUT on box exited before its ready command succeeded (exit 3)"));
  CHECK_THAT(f.message, Catch::Contains("no disks"));
  CHECK(f.took < 3s);
  fs::remove_all(dir);
}

TEST_CASE("ready command: a command that cannot run fails at once, not at the deadline") {
  fs::path dir = fresh_dir("missing");
  const std::string marker = mark_children();
  Failed f = failed_trial(write_config(
      dir, ready_by_command(kRefserver, "wb-no-such-probe --port {port}", 10), wb::test::free_port()));
  INFO(f.message);
  CHECK_THAT(f.message, Catch::StartsWith("the ready command `wb-no-such-probe --port "));
  CHECK_THAT(f.message, Catch::Contains("cannot run on box (exit 127)"));
  CHECK(f.took < 3s);
  CHECK(wb::test::survivors_after(marker).empty());
  fs::remove_all(dir);
}

TEST_CASE("ready command: the config is checked with file, line and key") {
  fs::path dir = fresh_dir("config");
  const std::string file = (dir / "ready.toml").string();
  const std::string start = "start = \"" + kRefserver + "\"\n";

  // [sut] is line 16 of the file; host and port come first, then these lines from 19 on.
  std::string e = load_error(dir, start + "ready = \"command\"\n");
  CHECK_THAT(e, Catch::StartsWith(file + ":20:sut.ready: ready = \"command\" needs ready_command"));

  e = load_error(dir, start + "ready = \"command\"\nready_command = \"probe {nosuch}\"\n");
  CHECK_THAT(e, Catch::StartsWith(file + ":21:sut.ready_command: "));
  CHECK_THAT(e, Catch::Contains("nosuch"));

  e = load_error(dir, start + "ready = \"tcp\"\nready_command = \"true\"\n");
  CHECK_THAT(e, Catch::StartsWith(file + ":21:sut.ready_command: is only used with ready = \"command\""));

  e = load_error(dir, start + "ready = \"command\"\nready_command = \"true\"\nready_interval_s = 0\n");
  CHECK_THAT(e, Catch::StartsWith(file + ":22:sut.ready_interval_s: must be positive"));

  e = load_error(dir, start + "ready = \"http\"\n");
  CHECK_THAT(e, Catch::StartsWith(file + ":20:sut.ready: must be"));
  CHECK_THAT(e, Catch::Contains("\"command\""));

  CHECK(
      load_error(dir, start + "ready = \"command\"\nready_command = \"test -e {config_dir}/up\"\n").empty());
  fs::remove_all(dir);
}
