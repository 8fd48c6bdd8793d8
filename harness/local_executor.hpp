#pragma once
// LocalExecutor: runs commands on this machine, each in its own session and process group,
// stdin on /dev/null, stdout and stderr on separate pipes read with poll (so a chatty stderr
// cannot deadlock a reader of stdout). Each command has a guard process (child_process.hpp) that
// kills its group if this process dies first.
//
// Deadline: when it passes, the whole group gets SIGTERM, then SIGKILL after `kill_grace` (also
// the guard's grace when this process dies).
// upload() copies the file on the local file system.
// Threads: the executor holds no mutable state; it may be used from several threads at once.
// Every Process it returns owns one reader thread that drains the pipes into memory (so a long
// running SUT never blocks on a full pipe); stop()/the destructor join it.
#include <chrono>
#include <memory>

#include "harness/executor.hpp"

namespace wb {

struct LocalExecutorOptions {
  std::chrono::milliseconds kill_grace{2000};  // SIGTERM -> SIGKILL at a deadline
};

std::unique_ptr<Executor> make_local_executor(LocalExecutorOptions options = {});

}  // namespace wb
