#pragma once
// Executor: where workbench runs commands, this machine (LocalExecutor) or an SSH host (SshExecutor).
// The trial runner, SUT lifecycle and generator adapters see only this, so tests can use a fake or an
// ExecutorWrapper that injects faults. Contracts of every implementation:
//  - A command is an argv, never a shell string; a shell, where needed, gets every argument quoted
//    (shell_quote.hpp) as exactly one literal word. stdin is always empty.
//  - Every command runs in its own process group (session); stopping it or its deadline kills the
//    whole group (SIGTERM, SIGKILL after a grace period), grandchildren included, and nothing else.
//  - Nothing outlives its controller: a start()ed command's group dies with the process that started
//    it, however that ends, through a guard (process_guard.hpp locally, remote_command.hpp over SSH).
//  - run() returns once the program has exited and its stdout and stderr have closed (like sh's
//    $(...)), up to the deadline; output is kept in memory.
//  - Failure: a non-zero exit is a CommandResult, not an error; a program that cannot run exits 127
//    (not found) or 126 (not executable) with the reason on `err`. wb::Error, naming host and command,
//    only when the executor itself fails (fork, SSH connection or host key, upload).
//  - Threads: one thread at a time per Executor; different Executors may run in parallel.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb {

struct CommandSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH; must not be empty
  std::map<std::string, std::string> env;  // added to (or overriding) the inherited environment;
                                           // names must be [A-Za-z_][A-Za-z0-9_]* (InputError)
  std::optional<std::string> cwd;          // working directory; default: the executor's
  std::chrono::milliseconds deadline{0};   // run(): wall-time limit, 0 = none;
                                           // start(): limit of the whole lifetime, 0 = none
};

// A started process group as it is known on its host: enough for a later controller to find it
// and to tell it from a process that reused the id (ProcessRegistry).
struct ProcessGroup {
  long pgid = -1;                 // -1: nothing runs (the program could not be executed)
  std::uint64_t start_ticks = 0;  // its leader's start time on its host (/proc/PGID/stat field
                                  // 22, clock ticks after boot); 0: unknown
};

struct CommandResult {
  int exit_status = -1;                    // 0..255 when the program exited; -1 if killed by a signal
  std::optional<std::string> exit_signal;  // "TERM", "KILL", ... when killed by a signal
  std::string out;                         // everything it wrote to stdout
  std::string err;                         // everything it wrote to stderr
  bool timed_out = false;                  // the deadline passed and the group was killed

  bool ok() const { return exit_status == 0 && !exit_signal && !timed_out; }
};

// A long-running command started by Executor::start (a SUT, a load generator running in the
// background). Owned by the caller; must not outlive the Executor that started it.
// The destructor stops the process group if it is still running and never throws.
class Process {
 public:
  virtual ~Process() = default;
  Process() = default;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  // The next line of stdout without its "\n" (e.g. a SUT's "ready"); nullopt when stdout has ended.
  // Throws Error if no complete line arrives within `timeout` or the start deadline passes (the message
  // includes the tail of stderr).
  virtual std::optional<std::string> read_line(std::chrono::milliseconds timeout) = 0;

  // Waits up to `timeout` for the process to exit and returns its result (stdout not yet
  // consumed by read_line is in `out`); nullopt if it is still running. Past the start deadline
  // it kills the group and returns with timed_out set.
  virtual std::optional<CommandResult> wait(std::chrono::milliseconds timeout) = 0;

  // Kills the whole process group: SIGTERM, then SIGKILL if anything of it is still alive after
  // `grace`. Returns the result; idempotent (a second call returns the same result).
  virtual CommandResult stop(std::chrono::milliseconds grace = std::chrono::seconds(2)) = 0;

  // "pgid 1234 on root@host:22: refserver --port 5000" — for messages and logs.
  virtual std::string describe() const = 0;

  // The process group it runs as; fixed once start() has returned (thread-safe).
  virtual ProcessGroup group() const = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  Executor() = default;
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs a command to completion (or to its deadline) and returns its exit status and output.
  virtual CommandResult run(const CommandSpec& spec) = 0;

  // Starts a long-running command and returns at once.
  virtual std::unique_ptr<Process> start(const CommandSpec& spec) = 0;

  // Copies the local file `local_path` to `remote_path` on the executor's host (replacing it
  // atomically: written to a temporary name, then renamed) and sets its permission bits.
  virtual void upload(const std::string& local_path, const std::string& remote_path, int mode) = 0;

  // "local" or "root@127.0.0.1:2222" — names the host in messages.
  virtual std::string describe() const = 0;
};

// Forwards every call to another Executor (not owned; it must outlive the wrapper). A test
// double derives from it and overrides only what it breaks (a dropped connection, a slow host,
// garbage output) — leveldb's EnvWrapper habit.
class ExecutorWrapper : public Executor {
 public:
  explicit ExecutorWrapper(Executor& target) : target_(target) {}
  Executor& target() const { return target_; }

  CommandResult run(const CommandSpec& spec) override { return target_.run(spec); }
  std::unique_ptr<Process> start(const CommandSpec& spec) override { return target_.start(spec); }
  void upload(const std::string& local_path, const std::string& remote_path, int mode) override {
    target_.upload(local_path, remote_path, mode);
  }
  std::string describe() const override { return target_.describe(); }

 private:
  Executor& target_;
};

// Throws InputError if argv is empty or an env name is not [A-Za-z_][A-Za-z0-9_]*. Every
// implementation calls it before running anything.
void check_command_spec(const CommandSpec& spec);

// The last `n` characters of a command's output on one line, for an error message: "..." before
// a cut, newlines as spaces, the trailing ones dropped.
std::string output_tail(const std::string& text, std::size_t n = 400);

// Makes sure `remote_path` on `target` holds the program at `local_path`: uploads it (mode 0755) when
// missing or when its `--version` differs, and returns true if it uploaded. Throws Error if the local
// program does not answer --version or the upload fails.
bool ensure_binary(Executor& target, const std::string& local_path, const std::string& remote_path);

}  // namespace wb
