#pragma once
// Test helper: a child process with its stdout and stderr on pipes, always reaped.
// The destructor SIGKILLs the child if it is still running and waits for it, so a failing test
// (an exception from REQUIRE) never leaves a process behind.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace wb::test {

class ChildProcess {
 public:
  // Starts argv[0] with arguments argv[1..]; throws std::runtime_error if it cannot.
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess() noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const noexcept { return pid_; }
  // The next line of stdout without its newline, or nullopt at EOF or after `timeout`.
  std::optional<std::string> read_stdout_line(std::chrono::milliseconds timeout);
  void send_signal(int sig) noexcept;
  // Exit code (128 + signal if killed by one), or nullopt if still running after `timeout`.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  // Everything left on stdout / stderr; call after the child exited.
  std::string drain_stdout();
  std::string drain_stderr();

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int exit_code_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_buf_;
};

// Runs a program to completion (killed after `timeout`) and returns its exit code and output.
struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
RunResult run_to_exit(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// A TCP port on 127.0.0.1 that the kernel handed out as free a moment ago (bind to port 0); throws
// std::runtime_error if it cannot. A port derived from the pid instead can be held by another
// socket: CI once failed with "Address already in use" that way.
int free_port();

}  // namespace wb::test
