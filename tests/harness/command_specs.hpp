#pragma once
// Test helper: commands run by /bin/sh for the executor tests, local and over SSH, and checks
// both make.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "harness/executor.hpp"

namespace wb::test {

inline wb::CommandSpec sh(const std::string& script,
                          std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
  return {{"/bin/sh", "-c", script}, {}, {}, deadline};
}

// Two background children and a grandchild that ignores SIGTERM, all waiting "forever".
constexpr const char* kProcessTree =
    "sleep 1000 & sh -c 'sleep 1000; :' & sh -c 'trap \"\" TERM; sleep 1000; :' & "
    "echo started; wait";

// sh(script, deadline) with WB_TEST_MARKER=`marker` in its environment, so that the processes it
// leaves can be found (process_table.hpp).
inline wb::CommandSpec marked_sh(const std::string& script, const std::string& marker,
                                 std::chrono::milliseconds deadline) {
  wb::CommandSpec spec = sh(script, deadline);
  spec.env = {{"WB_TEST_MARKER", marker}};
  return spec;
}

// A command run on `ex` that writes to both streams and exits 3: status, stdout and stderr apart.
// Returns its result.
inline wb::CommandResult check_run_keeps_streams_apart(wb::Executor& ex) {
  const auto r = ex.run(sh("echo out1; echo err1 >&2; printf out2; exit 3"));
  CHECK(r.exit_status == 3);
  CHECK_FALSE(r.exit_signal);
  CHECK_FALSE(r.timed_out);
  CHECK(r.out == "out1\nout2");
  CHECK(r.err == "err1\n");
  return r;
}

// kProcessTree run on `ex` with WB_TEST_MARKER=`marker` past its `deadline`: timed out after it
// printed "started", and not ok.
inline void check_run_past_deadline(wb::Executor& ex, const std::string& marker,
                                    std::chrono::milliseconds deadline) {
  const auto r = ex.run(marked_sh(kProcessTree, marker, deadline));
  CHECK(r.timed_out);
  CHECK(r.out == "started\n");
  CHECK_FALSE(r.ok());
}

// A process started on `ex` that exits by itself with `status`: wait returns its result, stdout
// and stderr apart.
inline void check_wait_returns_exit(wb::Executor& ex, int status) {
  auto p = ex.start(sh("echo a; echo b >&2; exit " + std::to_string(status), std::chrono::milliseconds(0)));
  const auto r = p->wait(std::chrono::seconds(10));
  REQUIRE(r);
  CHECK(r->exit_status == status);
  CHECK(r->out == "a\n");
  CHECK(r->err == "b\n");
}

}  // namespace wb::test
