// Ctrl-C (SIGINT) of `workbench peak` on configs/demo.toml (a copy with a free port): mid-trial,
// workbench exits promptly with 130, and the refserver and wbload it started on this machine are
// gone. The same over SSH is in peak_ssh_test.cpp.
#include <signal.h>
#include <stdlib.h>
#include <catch2/catch.hpp>

#include <optional>
#include <thread>

#include "process_table.hpp"
#include "testbed_support.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

using wb::test::kWorkbench;

int stored_trials(const fs::path& store) {
  return fs::exists(store) ? std::atoi(wb::test::query(store, "SELECT count(*) FROM trials").c_str()) : 0;
}

}  // namespace

TEST_CASE("Ctrl-C of peak on configs/demo.toml stops the local SUT and generator and exits 130") {
  fs::path dir = wb::test::fresh_dir("local_sigint");
  fs::path store = dir / "demo.db";
  std::string config = wb::test::shipped_config_copy("demo.toml", dir, wb::test::free_port());
  // workbench, and every process it starts here, inherits the marker.
  const std::string marker = wb::test::make_marker();
  ::setenv("WB_SIGINT_TEST_MARK", marker.c_str(), 1);
  wb::test::ChildProcess child({kWorkbench, "peak", "--config", config, "--store", store.string()});

  // Let the first trial finish (so a completed trial is stored), then interrupt the second.
  for (int i = 0; i < 300 && stored_trials(store) < 1; ++i) std::this_thread::sleep_for(100ms);
  REQUIRE(stored_trials(store) >= 1);
  const auto refserver = wb::test::wait_for_process("refserver", marker, 10s);
  const auto wbload = wb::test::wait_for_process("wbload", marker, 10s);
  REQUIRE(refserver.has_value());
  REQUIRE(wbload.has_value());
  std::this_thread::sleep_for(1s);  // into the trial: demo.toml's warm-up is 1 s, its runlength 3 s
  REQUIRE(::kill(*wbload, 0) == 0);

  const auto signalled = Clock::now();
  child.send_signal(SIGINT);
  auto code = child.wait_exit(30s);
  const auto took = Clock::now() - signalled;
  REQUIRE(code.has_value());
  INFO(child.drain_stderr());
  CHECK(*code == 130);
  // Promptly: the runner polls every 100 ms and stops wbload and refserver (SIGTERM, which both
  // handle) — not the 2 s of the trial that were left, nor a kill grace.
  CHECK(took < 2s);
  CHECK(wb::test::survivors_after(marker).empty());
  CHECK(wb::test::query(store, "SELECT status FROM searches") == "interrupted");  // resumable
  CHECK(stored_trials(store) >= 1);                                               // the completed trials stay
  fs::remove_all(dir);
}
