#pragma once
// SshExecutor: runs commands on a remote host over SSH with libssh, one authenticated session per host
// reused for every command (one channel per command).
// Security: the host key is verified against `known_hosts_file` (and the global file); an unknown or
// changed key is an Error naming host, key type, fingerprint and the fix; `accept_new` adds an unknown
// key, never a changed one. Authentication by key file, else the agent, never a password;
// ~/.ssh/config is not read.
// Commands: the line of remote_command.hpp in the POSIX-like login shell; a started command's guard
// ends its group when the channel closes. Deadlines and Process::stop send `kill -TERM -PGID`, then
// `-KILL` after the grace, on a second channel. Two channels are opened ahead with waiting shells
// (docs/decisions.md#ssh-spare-channels); `shell_ahead = false` only opens one channel ahead.
// Failure: a lost connection throws Error naming host and command; the next call reconnects
// (exponential backoff, `reconnect_attempts` tries) and first kills the groups left behind. A channel
// that cannot open on a reused session is retried once on a fresh one; host-key and authentication
// failures never are.
// Threads: one mutex per executor, held for the whole of a run(); use one executor per host. A Process
// must not outlive its executor.
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
