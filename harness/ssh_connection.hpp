#pragma once
// Internal to SshExecutor: move-only RAII owners of libssh handles, the one function that
// translates libssh errors, and connection set-up (connect, host-key check, authentication).
// Threads: none of this is thread-safe; SshExecutor serializes all use of one session.
#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "harness/ssh_executor.hpp"

namespace wb::ssh {

// "root@host:22" for messages.
std::string describe(const SshOptions& o);

// The one translation of libssh errors: Error("CONTEXT: libssh's message").
[[noreturn]] void throw_error(ssh_session session, const std::string& context);

// A failure that retrying cannot fix (host key refused, authentication refused, bad options).
class ConnectRefused : public Error {
 public:
  using Error::Error;
};

// Owns an ssh_session; the destructor disconnects and frees it (which frees its channels).
class Session {
 public:
  Session() = default;
  explicit Session(ssh_session s) : s_(s) {}
  Session(Session&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Session& operator=(Session&& o) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();
  ssh_session get() const { return s_; }
  explicit operator bool() const { return s_ != nullptr; }
  void reset() noexcept;

 private:
  ssh_session s_ = nullptr;
};

// Connects per the options, verifies the host key (strict unless accept_new) and authenticates.
// Throws ConnectRefused for host-key or authentication refusals, Error for anything else.
Session connect(const SshOptions& options);

// Owns an ssh_channel and what its callbacks record (exit status and signal). The destructor removes
// the callbacks before freeing the channel, which libssh may keep until the server confirms the close.
// release() gives up the handle without freeing it (its session was already freed).
class Channel {
 public:
  explicit Channel(ssh_session session);  // ssh_channel_new + open session; throws Error
  Channel(Channel&&) = delete;
  Channel(const Channel&) = delete;
  ~Channel();
  ssh_channel get() const { return ch_; }
  void release() noexcept;  // forget the handle without touching libssh

  // Sends the open request without waiting for the answer (nullptr if it could not be sent), so the
  // round trip overlaps the caller's work; finish_open() waits for the answer and returns false if the
  // server refused or the session failed.
  static std::unique_ptr<Channel> open_ahead(ssh_session session) noexcept;
  bool finish_open() noexcept;
  // The same without waiting (the session is non-blocking for the call): 1 once the server
  // confirmed the open, 0 while it has not answered, -1 if it refused (the handle is freed).
  int poll_open() noexcept;
  // Requests exec of `command` on the open channel: 1 once the server accepted it, 0 while its
  // answer is pending (only when !wait), -1 if it refused or the session failed. Call again with
  // the same command to collect a pending answer (libssh resumes the request it sent).
  int exec(const char* command, bool wait) noexcept;
  // Gives up the handle to a new owner (sftp_new_channel), without the callbacks.
  ssh_channel take() noexcept;

  std::optional<int> exit_status;
  std::optional<std::string> exit_signal;

 private:
  struct Deferred {};
  Channel(ssh_session session, Deferred);  // ssh_channel_new and callbacks only
  void free_handle() noexcept;

  ssh_channel ch_ = nullptr;
  ssh_channel_callbacks_struct callbacks_{};
};

// Owns an sftp_session on a connected session.
class Sftp {
 public:
  // sftp_new + sftp_init, or on `channel` (open, not yet used) when given; throws Error.
  explicit Sftp(ssh_session session, std::unique_ptr<Channel> channel = nullptr);
  Sftp(const Sftp&) = delete;
  Sftp& operator=(const Sftp&) = delete;
  ~Sftp();
  sftp_session get() const { return s_; }

 private:
  sftp_session s_ = nullptr;
};

}  // namespace wb::ssh
