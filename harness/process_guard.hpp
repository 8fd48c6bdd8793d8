#pragma once
// The guard of a local command (internal to ChildProcess): a fork of the controller that starts
// the command, reports on it, and kills its whole process group once the controller is gone —
// however the controller dies (SIGKILL, a crash, SIGHUP's default action), since what the guard
// watches is the end of a pipe only the controller can write to (DESIGN.md "Security and
// failure": nothing outlives its controller).
//
// Why the guard is the command's parent rather than a watcher beside it: it exists before the
// command does, so there is no moment at which the command runs and nobody knows its group. And
// a parent-death signal on the command itself would fire when the controller's *thread* exits,
// and would reach neither grandchildren nor processes that left the command's group.
//
// Protocol: the guard writes fixed-size Records to its status pipe: kStarted (the command's pid,
// which is its process group id, and its start time) or kFailed (errno of the exec), then
// kExited (wait status) once the command has exited. It exits
//  - when the lifeline (the read end of a pipe whose write end only the controller holds) ends:
//    SIGTERM to the group, SIGKILL to whatever is left after the grace period;
//  - when the command has exited and nothing of its group is left;
//  - when the controller kills it with SIGKILL (ChildProcess's destructor: the command is reaped,
//    its job is done). The command has a parent-death signal (SIGKILL) on the guard, which is
//    single-threaded, so a guard killed early by someone else takes the command with it.
// The guard ignores every other signal (they are blocked), including terminal ones: it runs in a
// session of its own, and so does the command.
//
// Between fork() and _exit() the guard runs in a copy of a multithreaded process: it calls only
// async-signal-safe functions (system calls; no allocation, locks or exceptions). Everything it
// needs is prepared in the Plan before the fork.
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
