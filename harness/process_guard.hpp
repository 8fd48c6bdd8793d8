#pragma once
// The guard of a local command (internal to ChildProcess): a fork of the controller that is the
// command's parent, reports on it, and kills its whole group once the controller is gone, however it
// died, by watching a pipe only the controller writes to (why: docs/decisions.md#process-guard).
// Protocol: fixed-size Records on the status pipe: kStarted (the pid = group id, start time) or
// kFailed (exec errno), then kExited (wait status). The guard exits when the lifeline ends (SIGTERM to
// the group, SIGKILL after the grace), when the command has exited and its group is empty, or when the
// controller SIGKILLs it (the command, reaped, has a parent-death SIGKILL on the guard). It blocks
// every other signal and, between fork() and _exit(), calls only async-signal-safe functions.
#include <cstdint>

namespace wb::guard {

enum Kind : std::int32_t { kStarted = 1, kFailed = 2, kExited = 3 };

// One event on the status pipe (16 bytes, written atomically: a pipe never splits it).
struct Record {
  std::int32_t kind = 0;
  std::int32_t value = 0;         // kStarted: pid; kFailed: errno; kExited: wait status
  std::uint64_t start_ticks = 0;  // kStarted: /proc/PID/stat field 22 of the command
};

struct Plan {
  char* const* argv = nullptr;   // null-terminated
  char* const* envp = nullptr;   // null-terminated
  char* const* paths = nullptr;  // where to look for argv[0], in PATH order; null-terminated
  const char* cwd = nullptr;     // nullptr: the controller's
  int lifeline = -1;             // read end: end of file once the controller is gone
  int status = -1;               // write end of the status pipe
  int out = -1;                  // write ends that become the command's stdout and stderr
  int err = -1;
  int grace_ms = 2000;  // SIGTERM -> SIGKILL when the controller is gone
};

// The guard's life, in the child of fork(); never returns.
[[noreturn]] void run_guard(const Plan& plan) noexcept;

}  // namespace wb::guard
