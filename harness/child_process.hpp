#pragma once
// ChildProcess: a local child in its own session and process group, stdin on /dev/null, stdout and
// stderr on pipes; internal to LocalExecutor (and the sshd fixture). It is started by a guard
// (process_guard.hpp), so it dies with this process however that dies, and its exit status comes
// from the guard: this process never waits for the child itself.
// Ownership: move-only RAII owner of the guard and both pipe read ends; the destructor SIGKILLs the
// group if the leader still runs, waits for its exit, ends the guard (leaving what the group still
// holds, as a shell would) and never throws.
// Threads: one owner thread (LocalProcess reads the pipes from another, through take_out()/take_err()).
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wb {

// A file descriptor owner (move-only; the destructor closes it and never throws).
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release() noexcept;
  void reset() noexcept;
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// How a reaped child ended.
struct ExitInfo {
  int exit_status = -1;               // when it exited
  std::optional<std::string> signal;  // "TERM", ... when a signal killed it
};

// "TERM" for SIGTERM etc. (the names SSH uses for exit-signal).
std::string signal_name(int sig);

class ChildProcess {
 public:
  // Starts argv (looked up in this process's PATH) with `env` added, in `cwd` if given. nullopt and
  // `spawn_error` (errno) if it could not be executed; Error for other failures (bad env names:
  // InputError). `guard_grace`: when this process dies, the guard's wait between SIGTERM and SIGKILL.
  static std::optional<ChildProcess> spawn(const std::vector<std::string>& argv,
                                           const std::map<std::string, std::string>& env,
                                           const std::optional<std::string>& cwd, int& spawn_error,
                                           std::chrono::milliseconds guard_grace = std::chrono::seconds(2));

  ChildProcess(ChildProcess&& o) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }  // also the process group id
  // The child's start time (/proc/PID/stat field 22): with the pid, it names the group for a
  // later controller that must tell it from a process that reused the id.
  std::uint64_t start_ticks() const { return start_ticks_; }
  Fd& out() { return out_; }
  Fd& err() { return err_; }

  // Collects the leader's exit if the guard has reported it (never blocks).
  const std::optional<ExitInfo>& try_reap();
  // Waits until the leader exits or `until` passes; returns whether it has exited.
  bool wait_until(std::chrono::steady_clock::time_point until);
  // True while any process of the group exists (the unreaped leader counts as one).
  bool group_alive();
  // SIGTERM to the group, then SIGKILL after `grace` if any of it remains; returns when the
  // group is gone or after a short bound past the SIGKILL (a process stuck in the kernel).
  void terminate_group(std::chrono::milliseconds grace);
  const std::optional<ExitInfo>& exit_info() const { return exit_; }
  // Sends `sig` to every process of the group.
  void kill_group(int sig) const noexcept;

 private:
  ChildProcess() = default;
  void end_guard() noexcept;

  pid_t pid_ = -1;
  std::uint64_t start_ticks_ = 0;
  pid_t guard_ = -1;  // our child; the leader's parent
  Fd lifeline_;       // write end of the guard's lifeline: never written; closed once the guard
                      // is gone (closing it first would make the guard kill the group)
  Fd status_;         // read end of the guard's reports (O_NONBLOCK); reset at its end of file
  Fd out_;
  Fd err_;
  std::optional<ExitInfo> exit_;
};

// Appends everything readable from `fd` to `sink` without blocking (fd must be O_NONBLOCK).
// Returns false at end of file.
bool drain_fd(int fd, std::string& sink);

}  // namespace wb
