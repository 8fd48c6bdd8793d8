#pragma once
// SshExecutor: runs commands on a remote host over SSH with libssh — one authenticated session
// per host, reused for every command (one channel per command).
//
// Security: the host key is verified against `known_hosts_file` (and the global file). An
// unknown or changed key is refused with an Error that names the host, the key type and
// fingerprint, and how to fix it; `accept_new` adds an unknown key (never a changed one).
// Authentication is by key file, else by the SSH agent ($SSH_AUTH_SOCK); never by password.
// ~/.ssh/config is not read: what connects is exactly what the options say.
//
// Commands: argv is quoted word by word (shell_quote.hpp) into the remote login shell, which
// must be POSIX-like, as the command line of remote_command.hpp: the command runs as its own
// process group (its own session) and reports the group id as its first line of output. A
// started command also has a guard in its group that ends the group when its channel closes
// (remote_start_line): so it dies with the controller and with a lost connection. At a
// deadline, or on Process::stop, a second channel runs `kill -TERM -PGID`, then `kill -KILL
// -PGID` after the grace period. (sshd ignores SSH "signal" requests from root sessions, and
// closing a channel without a pty leaves the remote process running, so neither is used.)
// Latency: once a command has its channel, channels for the next two are opened ahead and run
// a waiting shell each (remote_command.hpp), so the next command only writes its line: the
// round trips and sshd's start of the session and login shell overlap with this command and
// the caller's work. Each spare holds one of the server's MaxSessions; a refused one is simply
// opened anew when needed. `shell_ahead = false` only opens one channel ahead.
//
// Failure: connection loss during a command throws Error naming the host and the command. The
// next call reconnects (with exponential backoff, `reconnect_attempts` tries) and first kills
// the process groups of commands the lost connection left behind. A channel that cannot be
// opened on a reused session (it died while idle) is retried once on a fresh connection,
// since nothing has run yet. Host-key and authentication failures are never retried.
//
// Threads: a libssh session is not thread-safe. Every method (and every method of the
// Processes it returns) locks one mutex per executor, held for the whole of a run(). Use one
// executor per host; different executors may run in parallel threads.
// A Process must not outlive its executor.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "harness/executor.hpp"

namespace wb {

struct SshOptions {
  std::string host;  // name or address
  int port = 22;
  std::string user;              // empty: the local user's name
  std::string identity_file;     // private key file; empty: use the SSH agent
  std::string known_hosts_file;  // empty: ~/.ssh/known_hosts
  std::string global_known_hosts_file = "/etc/ssh/ssh_known_hosts";
  bool accept_new = false;                            // add an unknown host key to known_hosts_file
  std::chrono::seconds keepalive{15};                 // probe a quiet connection this often (SSH and TCP)
  std::chrono::milliseconds connect_timeout{10'000};  // per attempt, and per blocking libssh call
  int reconnect_attempts = 4;                         // connection attempts per (re)connect
  std::chrono::milliseconds reconnect_backoff{250};   // pause after the first failed attempt; doubles
  std::chrono::milliseconds kill_grace{2'000};        // SIGTERM -> SIGKILL of a remote group
  bool shell_ahead = true;  // start the next command's shell ahead (remote_command.hpp waiting_shell)
};

class SshExecutor : public Executor {
 public:
  // Authenticated connections made so far: 1 after construction, +1 per reconnect.
  virtual std::uint64_t connections() const = 0;
};

// Connects, verifies the host key and authenticates before returning; throws Error (with the
// fix for host-key problems) if any of that fails.
std::unique_ptr<SshExecutor> make_ssh_executor(const SshOptions& options);

// What describe() of an executor made with these options says ("root@127.0.0.1:2222"), without
// connecting.
std::string describe_ssh_host(const SshOptions& options);

}  // namespace wb
