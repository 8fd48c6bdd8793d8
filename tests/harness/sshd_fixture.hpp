#pragma once
// SshdFixture: a private OpenSSH server on 127.0.0.1 for tests and benchmarks — real sshd, real
// keys, key-only authentication, nothing shared with the system's sshd.
//
// The constructor creates a temporary directory with a host key, a client key authorized for
// the current user, a known_hosts file for the server and an sshd_config (see
// ../shared/notes/ssh-testing.md for why each setting is there), starts /usr/sbin/sshd -D on a
// free loopback port and returns once the port accepts connections. The destructor kills sshd
// and every process under it (connection children and whatever commands they started) and
// removes the directory; it never throws. If the process dies without the destructor (a crash,
// a killed test), a watchdog beside sshd notices and stops it.
//
// Requires root (sshd must switch to the login user) and openssh-server. Failures throw
// wb::Error with sshd's log. Threads: not thread-safe; const accessors may be read from several
// threads once constructed.
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace wb {
class Process;
}

namespace wb::test {

class SshdFixture {
 public:
  SshdFixture() : SshdFixture(std::vector<std::string>{}) {}
  // `config` lines go first into sshd_config, where they win over the fixture's own (sshd keeps
  // the first value of a keyword), e.g. {"MaxSessions 4"}.
  explicit SshdFixture(std::vector<std::string> config);
  ~SshdFixture();
  SshdFixture(const SshdFixture&) = delete;
  SshdFixture& operator=(const SshdFixture&) = delete;

  const std::string& host() const { return host_; }  // "127.0.0.1"
  int port() const { return port_; }
  const std::string& user() const { return user_; }                    // the user running the test
  const std::string& dir() const { return dir_; }                      // temp dir holding everything below
  const std::string& client_key() const { return client_key_; }        // private key, authorized
  const std::string& known_hosts() const { return known_hosts_; }      // lists this server's key
  const std::string& host_key_line() const { return host_key_line_; }  // "[127.0.0.1]:P ssh-ed25519 ..."

  // A known_hosts line for this host and port with a freshly generated key of the same type:
  // what a client sees after the server's key changed (or a man in the middle).
  std::string foreign_host_key_line() const;
  // Writes `lines` into dir()/name and returns its path (an empty list gives an empty file).
  std::string write_file(const std::string& name, const std::vector<std::string>& lines) const;

  pid_t listener_pid() const { return listener_pid_; }
  // The sshd processes serving connections (all sshd descendants of the listener).
  std::vector<pid_t> connection_pids() const;
  // Connections of user() that are open now, counted by the one process per connection that
  // is a direct child of the listener.
  std::size_t open_sessions() const;
  // SIGKILLs every sshd process serving a connection and returns once both ends of each
  // connection that was open have left ESTABLISHED (the client's has its FIN), so the client
  // sees the close on its next read; the listener keeps accepting new ones. Commands those
  // connections started are left running (as when a network drops).
  void kill_connections() const;

  // sshd's log (LogLevel DEBUG1) so far; count_log counts lines containing `needle`, e.g.
  // "Accepted publickey" once per authenticated connection.
  std::string log() const;
  std::size_t count_log(const std::string& needle) const;

 private:
  void start(const std::vector<std::string>& config);  // the constructor's work once dir_ exists
  void close_alive_fd() noexcept;

  std::string host_ = "127.0.0.1";
  int port_ = 0;
  std::string user_;
  std::string dir_;
  std::string client_key_;
  std::string known_hosts_;
  std::string host_key_line_;
  std::string log_file_;
  pid_t listener_pid_ = -1;
  int alive_fd_ = -1;  // write end of the watchdog's FIFO; closing it (or dying) stops sshd
  std::unique_ptr<wb::Process> sshd_;
};

}  // namespace wb::test
