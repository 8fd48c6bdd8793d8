#include "harness/ssh_connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>

namespace wb::ssh {
namespace {

std::string local_user() {
  const passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : "root";
}

// "[host]:port" as known_hosts writes it (plain "host" for port 22).
std::string known_hosts_name(const SshOptions& o) {
  return o.port == 22 ? o.host : fmt::format("[{}]:{}", o.host, o.port);
}

std::string known_hosts_path(const SshOptions& o) {
  if (!o.known_hosts_file.empty()) return o.known_hosts_file;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.ssh/known_hosts";
}

// "ssh-ed25519 SHA256:abc..." of the key the server offered.
std::string server_key_description(ssh_session s) {
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(s, &key) != SSH_OK) return "(no server key)";
  unsigned char* hash = nullptr;
  size_t len = 0;
  std::string text = ssh_key_type_to_char(ssh_key_type(key));
  if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &len) == 0) {
    char* fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, len);
    if (fp != nullptr) {
      text += std::string(" ") + fp;
      ssh_string_free_char(fp);
    }
    ssh_clean_pubkey_hash(&hash);
  }
  ssh_key_free(key);
  return text;
}

void set_option(ssh_session s, ssh_options_e option, const void* value, const char* name) {
  if (ssh_options_set(s, option, value) != SSH_OK) throw_error(s, fmt::format("setting {}", name));
}

// [security] Strict by default: only a key already listed passes. accept_new adds a key for a
// host that has none, never replaces one.
void verify_host_key(ssh_session s, const SshOptions& o) {
  const std::string where = describe(o);
  const std::string file = known_hosts_path(o);
  const std::string offered = server_key_description(s);
  const std::string scan = fmt::format("ssh-keyscan -p {} {} >> {}", o.port, o.host, file);
  switch (ssh_session_is_known_server(s)) {
    case SSH_KNOWN_HOSTS_OK: return;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
      throw ConnectRefused(fmt::format(
          "{}: host key CHANGED: the server offers {}, which does not match the key {} lists for "
          "{}. This is a reinstalled host or a man-in-the-middle attack. If the change is "
          "expected, remove the old key (ssh-keygen -R '{}' -f {}) and add the new one ({}) after "
          "checking its fingerprint; accept-new does not replace a changed key.",
          where, offered, file, known_hosts_name(o), known_hosts_name(o), file, scan));
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
      if (o.accept_new) {
        if (ssh_session_update_known_hosts(s) != SSH_OK) {
          throw_error(s, fmt::format("{}: adding the host key to {}", where, file));
        }
        return;
      }
      throw ConnectRefused(
          fmt::format("{}: unknown host key: {} is not in {} (the server offers {}). Check the fingerprint, "
                      "then add it ({}), or set accept-new for this host to trust it on first connection.",
                      where, known_hosts_name(o), file, offered, scan));
    case SSH_KNOWN_HOSTS_ERROR:
    default: throw_error(s, fmt::format("{}: checking the host key against {}", where, file));
  }
}

void authenticate(ssh_session s, const SshOptions& o) {
  const std::string where = describe(o);
  int rc = SSH_AUTH_ERROR;
  if (!o.identity_file.empty()) {
    ssh_key key = nullptr;
    if (ssh_pki_import_privkey_file(o.identity_file.c_str(), nullptr, nullptr, nullptr, &key) != SSH_OK) {
      throw ConnectRefused(
          fmt::format("{}: cannot read the private key {} (missing, unreadable or "
                      "passphrase-protected; use the SSH agent for the latter)",
                      where, o.identity_file));
    }
    rc = ssh_userauth_publickey(s, nullptr, key);
    ssh_key_free(key);
  } else {
    rc = ssh_userauth_agent(s, nullptr);
  }
  if (rc == SSH_AUTH_SUCCESS) return;
  if (rc == SSH_AUTH_ERROR) throw_error(s, where + ": authentication");
  throw ConnectRefused(fmt::format(
      "{}: the server refused {}; is the matching public key in ~{}/.ssh/authorized_keys?", where,
      o.identity_file.empty() ? "every key of the SSH agent" : "the key " + o.identity_file, o.user));
}

// TCP keepalive under the SSH-level one: notices a vanished peer even while nothing is sent.
void enable_tcp_keepalive(ssh_session s, std::chrono::seconds interval) {
  const int fd = ssh_get_fd(s);
  if (fd < 0 || interval.count() <= 0) return;
  const int on = 1;
  const int idle = static_cast<int>(interval.count());
  const int intvl = std::max(1, idle / 3);
  const int count = 3;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

}  // namespace

std::string describe(const SshOptions& o) {
  return fmt::format("{}@{}:{}", o.user.empty() ? local_user() : o.user, o.host, o.port);
}

void throw_error(ssh_session session, const std::string& context) {
  const char* msg = session != nullptr ? ssh_get_error(session) : nullptr;
  throw Error(fmt::format("{}: {}", context, msg != nullptr && *msg != '\0' ? msg : "libssh error"));
}

Session& Session::operator=(Session&& o) noexcept {
  if (this != &o) {
    reset();
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}

Session::~Session() { reset(); }

void Session::reset() noexcept {
  if (s_ == nullptr) return;
  if (ssh_is_connected(s_)) ssh_disconnect(s_);
  ssh_free(s_);
  s_ = nullptr;
}

Session connect(const SshOptions& o) {
  Session session(ssh_new());
  ssh_session s = session.get();
  if (s == nullptr) throw Error("ssh_new failed");
  const std::string user = o.user.empty() ? local_user() : o.user;
  const std::string known = known_hosts_path(o);
  const int port = o.port;
  const long timeout_s = std::max<long>(
      1, static_cast<long>(std::chrono::ceil<std::chrono::seconds>(o.connect_timeout).count()));
  const int nodelay = 1;              // without it every channel open waits ~40 ms on Nagle
  const bool process_config = false;  // hermetic: never read ~/.ssh/config
  set_option(s, SSH_OPTIONS_HOST, o.host.c_str(), "host");
  set_option(s, SSH_OPTIONS_PORT, &port, "port");
  set_option(s, SSH_OPTIONS_USER, user.c_str(), "user");
  set_option(s, SSH_OPTIONS_PROCESS_CONFIG, &process_config, "process_config");
  set_option(s, SSH_OPTIONS_KNOWNHOSTS, known.c_str(), "known_hosts");
  set_option(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS,
             o.global_known_hosts_file.empty() ? "/dev/null" : o.global_known_hosts_file.c_str(),
             "global known_hosts");
  set_option(s, SSH_OPTIONS_TIMEOUT, &timeout_s, "timeout");
  set_option(s, SSH_OPTIONS_NODELAY, &nodelay, "nodelay");
  if (ssh_connect(s) != SSH_OK) throw_error(s, describe(o) + ": connect");
  verify_host_key(s, o);
  authenticate(s, o);
  enable_tcp_keepalive(s, o.keepalive);
  return session;
}

Channel::Channel(ssh_session session, Deferred) {
  ch_ = ssh_channel_new(session);
  if (ch_ == nullptr) throw_error(session, "ssh_channel_new");
  ssh_callbacks_init(&callbacks_);
  callbacks_.userdata = this;
  callbacks_.channel_exit_status_function = [](ssh_session, ssh_channel, int status, void* self) {
    static_cast<Channel*>(self)->exit_status = status;
  };
  callbacks_.channel_exit_signal_function = [](ssh_session, ssh_channel, const char* signal, int, const char*,
                                               const char*, void* self) {
    static_cast<Channel*>(self)->exit_signal = signal != nullptr ? signal : "?";
  };
  ssh_set_channel_callbacks(ch_, &callbacks_);
}

Channel::Channel(ssh_session session) : Channel(session, Deferred{}) {
  if (ssh_channel_open_session(ch_) != SSH_OK) {
    const std::string msg = ssh_get_error(session);
    free_handle();
    throw Error("opening a channel: " + msg);
  }
}

std::unique_ptr<Channel> Channel::open_ahead(ssh_session session) noexcept {
  try {
    std::unique_ptr<Channel> c(new Channel(session, Deferred{}));
    // Non-blocking, libssh sends SSH_MSG_CHANNEL_OPEN and returns SSH_AGAIN (or SSH_OK if the
    // confirmation was already there); a later blocking call of the same function waits for it.
    const int blocking = ssh_is_blocking(session);
    ssh_set_blocking(session, 0);
    const int rc = ssh_channel_open_session(c->ch_);
    ssh_set_blocking(session, blocking);
    if (rc == SSH_OK || rc == SSH_AGAIN) return c;
  } catch (...) {
  }
  return nullptr;
}

bool Channel::finish_open() noexcept {
  if (ssh_channel_open_session(ch_) == SSH_OK) return true;
  // Refused (e.g. the server's MaxSessions) or the session failed. A refused channel was never
  // bound on the server, so libssh frees it at once.
  free_handle();
  return false;
}

namespace {

// Runs one libssh call on a non-blocking session, then restores the session's mode.
template <typename F>
int nonblocking(ssh_session session, F call) noexcept {
  const int blocking = ssh_is_blocking(session);
  ssh_set_blocking(session, 0);
  const int rc = call();
  ssh_set_blocking(session, blocking);
  return rc;
}

}  // namespace

int Channel::poll_open() noexcept {
  const int rc = nonblocking(ssh_channel_get_session(ch_), [&] { return ssh_channel_open_session(ch_); });
  if (rc == SSH_OK) return 1;
  if (rc == SSH_AGAIN) return 0;
  free_handle();
  return -1;
}

int Channel::exec(const char* command, bool wait) noexcept {
  const int rc = wait ? ssh_channel_request_exec(ch_, command)
                      : nonblocking(ssh_channel_get_session(ch_),
                                    [&] { return ssh_channel_request_exec(ch_, command); });
  if (rc == SSH_OK) return 1;
  return rc == SSH_AGAIN ? 0 : -1;
}

ssh_channel Channel::take() noexcept {
  if (ch_ != nullptr) ssh_remove_channel_callbacks(ch_, &callbacks_);
  return std::exchange(ch_, nullptr);
}

void Channel::free_handle() noexcept {
  if (ch_ == nullptr) return;
  ssh_remove_channel_callbacks(ch_, &callbacks_);
  ssh_channel_free(ch_);
  ch_ = nullptr;
}

Channel::~Channel() {
  if (ch_ == nullptr) return;
  ssh_remove_channel_callbacks(ch_, &callbacks_);
  if (ssh_channel_is_open(ch_)) ssh_channel_close(ch_);
  ssh_channel_free(ch_);
}

void Channel::release() noexcept { ch_ = nullptr; }

Sftp::Sftp(ssh_session session, std::unique_ptr<Channel> channel) {
  if (channel) {
    if (ssh_channel_request_sftp(channel->get()) != SSH_OK) throw_error(session, "starting SFTP");
    s_ = sftp_new_channel(session, channel->get());
    if (s_ != nullptr) channel->take();  // sftp_free frees it now
  } else {
    s_ = sftp_new(session);
  }
  if (s_ == nullptr) throw_error(session, "starting SFTP");
  if (sftp_init(s_) != SSH_OK) {
    const int code = sftp_get_error(s_);
    sftp_free(s_);
    s_ = nullptr;
    throw_error(session, fmt::format("SFTP init (code {})", code));
  }
}

Sftp::~Sftp() {
  if (s_ != nullptr) sftp_free(s_);
}

}  // namespace wb::ssh
