#pragma once
// LocalExecutor: runs commands on this machine, each in its own session with a guard
// (child_process.hpp), stdin on /dev/null, stdout and stderr on pipes read with poll (a chatty stderr
// cannot block stdout). Past the deadline the group gets SIGTERM, then SIGKILL after `kill_grace`.
// upload() copies the file locally. Threads: no mutable state, so usable from several threads; each
// Process owns a reader thread draining its pipes (a long-running SUT never blocks on a full pipe),
// joined by stop() or the destructor.
#include <chrono>
#include <memory>

#include "harness/executor.hpp"

namespace wb {

struct LocalExecutorOptions {
  std::chrono::milliseconds kill_grace{2000};  // SIGTERM -> SIGKILL at a deadline
};

std::unique_ptr<Executor> make_local_executor(LocalExecutorOptions options = {});

}  // namespace wb
