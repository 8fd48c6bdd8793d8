// LocalExecutor against real processes: exit status, separate streams, environment, deadlines
// that kill whole process groups (checked in /proc), long-running processes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "command_specs.hpp"
#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "process_table.hpp"

using namespace std::chrono_literals;
using wb::CommandSpec;
using wb::test::kProcessTree;
using wb::test::marked_sh;
using wb::test::sh;

TEST_CASE("local: exit status, stdout and stderr come through apart") {
  auto ex = wb::make_local_executor();
  CHECK_FALSE(wb::test::check_run_keeps_streams_apart(*ex).ok());
  CHECK(ex->run(sh("true")).ok());
}

TEST_CASE("local: environment is added, cwd is honoured, argv is not re-parsed") {
  auto ex = wb::make_local_executor();
  CommandSpec spec = sh("printf '%s|%s|%s' \"$WB_A\" \"$(pwd)\" \"$0\"");
  spec.argv.push_back("$(touch /tmp/wb-pwned) x");
  spec.env = {{"WB_A", "a b $(x)"}};
  spec.cwd = "/usr";
  const auto r = ex->run(spec);
  REQUIRE(r.exit_status == 0);
  CHECK(r.out == "a b $(x)|/usr|$(touch /tmp/wb-pwned) x");
  CHECK_FALSE(std::filesystem::exists("/tmp/wb-pwned"));
  CHECK(ex->run(sh("test -n \"$PATH\"")).ok());  // the inherited environment is kept
}

TEST_CASE("local: a bad environment name is an input error") {
  auto ex = wb::make_local_executor();
  CommandSpec spec = sh("true");
  spec.env = {{"A B", "x"}};
  CHECK_THROWS_AS(ex->run(spec), wb::InputError);
  CHECK_THROWS_AS(ex->run(CommandSpec{}), wb::InputError);
}

TEST_CASE("local: a missing program is exit status 127 with the reason") {
  auto ex = wb::make_local_executor();
  const auto r = ex->run({{"wb-no-such-program-xyz"}, {}, {}, 5s});
  CHECK(r.exit_status == 127);
  CHECK_THAT(r.err, Catch::Contains("wb-no-such-program-xyz"));
  auto p = ex->start({{"wb-no-such-program-xyz"}, {}, {}, 5s});
  CHECK(p->wait(1s)->exit_status == 127);
}

TEST_CASE("local: death by signal is reported as the signal") {
  auto ex = wb::make_local_executor();
  const auto r = ex->run(sh("kill -KILL $$"));
  CHECK(r.exit_status == -1);
  REQUIRE(r.exit_signal);
  CHECK(*r.exit_signal == "KILL");
}

TEST_CASE("local: much output on both streams does not deadlock") {
  auto ex = wb::make_local_executor();
  const auto r =
      ex->run(sh("head -c 3000000 /dev/zero >&2; head -c 2000000 /dev/zero; head -c 1000 /dev/zero >&2"));
  CHECK(r.exit_status == 0);
  CHECK(r.out.size() == 2000000);
  CHECK(r.err.size() == 3001000);
}

TEST_CASE("local: a deadline kills the whole group, grandchildren included") {
  wb::LocalExecutorOptions options;
  options.kill_grace = 300ms;
  auto ex = wb::make_local_executor(options);
  const std::string marker = wb::test::make_marker();
  wb::test::check_run_past_deadline(*ex, marker, 500ms);
  CHECK(wb::test::survivors_after(marker, 0ms).empty());
}

TEST_CASE("local: a deadline also holds for a command that closed its output") {
  auto ex = wb::make_local_executor({200ms});
  const std::string marker = wb::test::make_marker();
  CommandSpec spec = marked_sh("echo bye; exec >/dev/null 2>&1; sleep 1000", marker, 300ms);
  const auto r = ex->run(spec);
  CHECK(r.timed_out);
  CHECK(r.out == "bye\n");
  CHECK(wb::test::survivors_after(marker, 0ms).empty());
}

TEST_CASE("local: a started process is read line by line and stop() kills its group") {
  auto ex = wb::make_local_executor({300ms});
  const std::string marker = wb::test::make_marker();
  CommandSpec spec = marked_sh(std::string("sleep 0.2; echo ready; echo more; ") + kProcessTree, marker, 0ms);
  auto p = ex->start(spec);
  CHECK_THAT(p->describe(), Catch::Contains("pgid"));
  CHECK(p->read_line(10s) == std::optional<std::string>("ready"));
  CHECK(p->read_line(10s) == std::optional<std::string>("more"));
  CHECK(p->read_line(10s) == std::optional<std::string>("started"));
  CHECK_FALSE(p->wait(50ms));
  CHECK_THROWS_AS(p->read_line(100ms), wb::Error);  // nothing more comes
  REQUIRE_FALSE(wb::test::pids_with_marker(marker).empty());
  const auto r = p->stop(300ms);
  CHECK(r.exit_signal == std::optional<std::string>("TERM"));
  CHECK(wb::test::survivors_after(marker, 0ms).empty());
  CHECK(p->stop(300ms).exit_signal == r.exit_signal);  // idempotent
}

TEST_CASE("local: destroying a started process stops its group") {
  auto ex = wb::make_local_executor({200ms});
  const std::string marker = wb::test::make_marker();
  CommandSpec spec = marked_sh(kProcessTree, marker, 0ms);
  {
    auto p = ex->start(spec);
    CHECK(p->read_line(10s) == std::optional<std::string>("started"));
  }
  CHECK(wb::test::survivors_after(marker, 0ms).empty());
}

TEST_CASE("local: a started process past its deadline is killed at the next call") {
  auto ex = wb::make_local_executor({200ms});
  const std::string marker = wb::test::make_marker();
  CommandSpec spec = marked_sh(kProcessTree, marker, 300ms);
  auto p = ex->start(spec);
  const auto r = p->wait(10s);
  REQUIRE(r);
  CHECK(r->timed_out);
  CHECK(r->out == "started\n");
  CHECK(wb::test::survivors_after(marker, 0ms).empty());
}

TEST_CASE("local: wait returns the result of a process that exits by itself") {
  auto ex = wb::make_local_executor();
  wb::test::check_wait_returns_exit(*ex, 4);
}

TEST_CASE("local: upload copies a file with its mode, replacing the old one") {
  const auto dir = std::filesystem::temp_directory_path() / ("wb_upload_" + wb::test::make_marker());
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "src") << "#!/bin/sh\necho hello\n"; }
  { std::ofstream(dir / "dst") << "old"; }
  auto ex = wb::make_local_executor();
  ex->upload((dir / "src").string(), (dir / "dst").string(), 0755);
  CHECK(ex->run({{(dir / "dst").string()}, {}, {}, 5s}).out == "hello\n");
  CHECK_THROWS_AS(ex->upload((dir / "missing").string(), (dir / "x").string(), 0644), wb::Error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("ExecutorWrapper forwards what a test double does not override") {
  struct Flaky : wb::ExecutorWrapper {
    using ExecutorWrapper::ExecutorWrapper;
    wb::CommandResult run(const CommandSpec& spec) override {
      if (++calls == 2) throw wb::Error("injected: connection dropped");
      return ExecutorWrapper::run(spec);
    }
    int calls = 0;
  };
  auto ex = wb::make_local_executor();
  Flaky flaky(*ex);
  CHECK(flaky.run(sh("echo 1")).out == "1\n");
  CHECK_THROWS_WITH(flaky.run(sh("echo 2")), "injected: connection dropped");
  CHECK(flaky.run(sh("echo 3")).out == "3\n");
  CHECK(flaky.describe() == "local");
  auto p = flaky.start(sh("echo s", 0ms));
  CHECK(p->read_line(5s) == std::optional<std::string>("s"));
}
