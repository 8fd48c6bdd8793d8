#include "sshd_fixture.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "harness/local_executor.hpp"

namespace wb::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// pid -> (parent pid, command name) for every process.
std::map<pid_t, std::pair<pid_t, std::string>> process_table() {
  std::map<pid_t, std::pair<pid_t, std::string>> table;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = slurp((entry.path() / "stat").string());
    const auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    long ppid = 0;
    if (!(rest >> state >> ppid) || state == 'Z') continue;
    table[static_cast<pid_t>(std::stol(name))] = {static_cast<pid_t>(ppid),
                                                  stat.substr(open + 1, close - open - 1)};
  }
  return table;
}

std::vector<pid_t> descendants(pid_t root) {
  const auto table = process_table();
  std::vector<pid_t> found{root};
  for (std::size_t i = 0; i < found.size(); ++i) {
    for (const auto& [pid, info] : table) {
      if (info.first == found[i]) found.push_back(pid);
    }
  }
  found.erase(found.begin());
  return found;
}

// The loopback TCP connections to `port` that are ESTABLISHED (state 01 in /proc/net/tcp) at
// either end, by their client port: the server's ends of its open connections (local port `port`)
// and the clients' ends (remote port `port`).
struct EstablishedEnds {
  std::set<int> server, client;
};
EstablishedEnds established_ends(int port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // the header
  EstablishedEnds ends;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    if (!(fields >> slot >> local >> remote >> state) || state != "01") continue;
    const auto local_colon = local.find(':'), remote_colon = remote.find(':');
    if (local_colon == std::string::npos || remote_colon == std::string::npos) continue;
    const int local_port = std::stoi(local.substr(local_colon + 1), nullptr, 16);
    const int remote_port = std::stoi(remote.substr(remote_colon + 1), nullptr, 16);
    if (local_port == port) ends.server.insert(remote_port);
    if (remote_port == port) ends.client.insert(local_port);
  }
  return ends;
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw_errno("socket", errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  if (port < 0) throw Error("cannot find a free loopback port");
  return port;
}

void run_checked(Executor& ex, const std::vector<std::string>& argv) {
  const auto r = ex.run({argv, {}, {}, 30s});
  if (!r.ok()) throw Error(fmt::format("{} failed (exit {}): {}", argv[0], r.exit_status, r.err));
}

// "ssh-ed25519 AAAA..." from a .pub file (without the comment).
std::string public_key(const std::string& pub_file) {
  std::istringstream in(slurp(pub_file));
  std::string type, blob;
  in >> type >> blob;
  return type + " " + blob;
}

}  // namespace

SshdFixture::SshdFixture(std::vector<std::string> config) {
  if (::geteuid() != 0) throw Error("SshdFixture needs root: sshd must switch to the login user");
  const passwd* pw = ::getpwuid(::geteuid());
  user_ = pw != nullptr ? pw->pw_name : "root";
  std::string tmpl = (fs::temp_directory_path() / "wb-sshd-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw_errno("mkdtemp", errno);
  dir_ = tmpl;
  try {
    start(config);
  } catch (...) {
    // The destructor does not run for a constructor that throws: clean up here.
    sshd_.reset();
    close_alive_fd();
    std::error_code ec;
    fs::remove_all(dir_, ec);
    throw;
  }
}

void SshdFixture::start(const std::vector<std::string>& extra_config) {
  fs::create_directories(dir_ + "/home");  // empty HOME: no ~/.bashrc per command
  ::mkdir("/run/sshd", 0755);              // sshd's privilege separation directory

  auto local = make_local_executor();
  run_checked(*local,
              {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "wb-host", "-f", dir_ + "/host_key"});
  run_checked(*local,
              {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "wb-client", "-f", dir_ + "/client_key"});
  client_key_ = dir_ + "/client_key";
  write_file("authorized_keys", {slurp(client_key_ + ".pub")});
  log_file_ = dir_ + "/sshd.log";

  for (int attempt = 0; attempt < 3 && !sshd_; ++attempt) {
    port_ = free_loopback_port();
    std::vector<std::string> lines = extra_config;
    lines.insert(lines.end(), {
                                  fmt::format("Port {}", port_),
                                  "ListenAddress 127.0.0.1",
                                  "HostKey " + dir_ + "/host_key",
                                  "PidFile " + dir_ + "/sshd.pid",
                                  "AuthorizedKeysFile " + dir_ + "/authorized_keys",
                                  "PasswordAuthentication no",
                                  "KbdInteractiveAuthentication no",
                                  "UsePAM no",
                                  "PermitRootLogin prohibit-password",
                                  "StrictModes no",
                                  "MaxStartups 100",
                                  "MaxSessions 100",
                                  "LogLevel DEBUG1",  // VERBOSE plus requests such as keepalives
                                  "SetEnv HOME=" + dir_ + "/home",
                                  "Subsystem sftp /usr/lib/openssh/sftp-server",
                              });
    const std::string config = write_file("sshd_config", lines);
    run_checked(*local, {"/usr/sbin/sshd", "-t", "-f", config});
    // sshd runs under a watchdog: if this process dies without running the destructor (a
    // crash, a killed test run), the FIFO's last writer closes, the watchdog's read returns and
    // it kills sshd, so no listener outlives its test.
    const std::string fifo = fmt::format("{}/alive-{}", dir_, attempt);
    if (::mkfifo(fifo.c_str(), 0600) != 0) throw_errno("mkfifo " + fifo, errno);
    close_alive_fd();
    alive_fd_ = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);  // O_RDWR: does not wait for a reader
    if (alive_fd_ < 0) throw_errno("open " + fifo, errno);
    const char* watchdog =
        "/usr/sbin/sshd -D -E \"$1\" -f \"$2\" & pid=$!\n"
        "(read -r _ <\"$3\"; kill $pid) >/dev/null 2>&1 &\n"
        "wait $pid";
    auto sshd =
        local->start({{"/bin/sh", "-c", watchdog, "sshd-watchdog", log_file_, config, fifo}, {}, {}, {}});
    const auto until = std::chrono::steady_clock::now() + 10s;
    bool up = false;
    while (!up && std::chrono::steady_clock::now() < until) {
      if (sshd->wait(20ms)) break;  // exited: the port was taken after all, or a config problem
      // sshd logs this once it listens; waiting for the log rather than probing the port
      // keeps stray connections out of the log and the process table. It writes its pid file
      // only after that line: read too early, the listener's pid was 0, whose "descendants"
      // are every process, and kill_connections() then killed the listener too.
      const std::string pid_file = slurp(dir_ + "/sshd.pid");
      up = log().find("Server listening on") != std::string::npos && !pid_file.empty() &&
           pid_file.back() == '\n' && std::atol(pid_file.c_str()) > 1;
    }
    if (up) sshd_ = std::move(sshd);
  }
  if (!sshd_) throw Error("sshd did not start; its log:\n" + log());
  listener_pid_ = static_cast<pid_t>(std::atol(slurp(dir_ + "/sshd.pid").c_str()));
  host_key_line_ = fmt::format("[{}]:{} {}", host_, port_, public_key(dir_ + "/host_key.pub"));
  known_hosts_ = write_file("known_hosts", {host_key_line_});
}

SshdFixture::~SshdFixture() {
  try {
    // Find the tree first: once the listener is gone its children belong to init.
    const auto children = listener_pid_ > 0 ? descendants(listener_pid_) : std::vector<pid_t>{};
    if (sshd_) sshd_->stop(500ms);
    for (pid_t pid : children) ::kill(pid, SIGKILL);
    close_alive_fd();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  } catch (...) {
    // Never throw from a destructor; the Process owner still kills the listener.
  }
}

void SshdFixture::close_alive_fd() noexcept {
  if (alive_fd_ >= 0) ::close(alive_fd_);
  alive_fd_ = -1;
}

std::string SshdFixture::write_file(const std::string& name, const std::vector<std::string>& lines) const {
  std::string path = dir_ + "/" + name;
  std::ofstream out(path, std::ios::trunc);
  for (const auto& line : lines) {
    out << line;
    if (line.empty() || line.back() != '\n') out << '\n';
  }
  if (!out) throw Error("cannot write " + path);
  return path;
}

std::string SshdFixture::foreign_host_key_line() const {
  auto local = make_local_executor();
  const std::string key = dir_ + "/foreign_key";
  std::error_code ec;
  fs::remove(key, ec);
  fs::remove(key + ".pub", ec);
  run_checked(*local, {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key});
  return fmt::format("[{}]:{} {}", host_, port_, public_key(key + ".pub"));
}

std::vector<pid_t> SshdFixture::connection_pids() const {
  std::vector<pid_t> pids;
  const auto table = process_table();
  for (pid_t pid : descendants(listener_pid_)) {
    const auto it = table.find(pid);
    if (it != table.end() && it->second.second == "sshd") pids.push_back(pid);
  }
  return pids;
}

std::size_t SshdFixture::open_sessions() const {
  // One process per connection is a direct child of the listener (for root the session process
  // itself, "sshd: root" / "sshd: root@notty"; for other users the monitor, "sshd: USER [priv]").
  // Channels fork grandchildren, and unauthenticated connections show as "[net]"/"[preauth]".
  const std::string prefix = "sshd: " + user_;
  std::size_t n = 0;
  for (const auto& [pid, info] : process_table()) {
    if (info.first != listener_pid_) continue;
    const std::string title = slurp("/proc/" + std::to_string(pid) + "/cmdline");
    const bool this_user =
        title.rfind(prefix, 0) == 0 && (title.size() == prefix.size() || title[prefix.size()] == '@' ||
                                        title[prefix.size()] == ' ' || title[prefix.size()] == '\0');
    n +=
        this_user && title.find("[net]") == std::string::npos && title.find("[preauth]") == std::string::npos;
  }
  return n;
}

void SshdFixture::kill_connections() const {
  // Killing is not yet closing: a connection process may have forked a channel's child (still
  // holding the connection's socket until it closes its descriptors) just before the kill, and
  // a process under load takes a while to exit. Nor is the server's end closing the client's: its
  // FIN reaches the client's socket a little later, later still under load, and until then a
  // poll of the client's end sees nothing (one run in ~50 of the idle-connection test, with a
  // benchmark beside it, wrote its command to the dead connection). So wait until both ends of
  // every connection open now have left ESTABLISHED — then the client sees the close on its next
  // read.
  const std::set<int> open_now = established_ends(port_).server;
  for (pid_t pid : connection_pids()) ::kill(pid, SIGKILL);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    const EstablishedEnds still = established_ends(port_);
    if (std::none_of(open_now.begin(), open_now.end(),
                     [&](int p) { return still.server.count(p) > 0 || still.client.count(p) > 0; }))
      return;
    if (std::chrono::steady_clock::now() >= until) {
      throw Error(fmt::format("sshd fixture: a connection to port {} stayed open 10 s after SIGKILL", port_));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string SshdFixture::log() const { return slurp(log_file_); }

std::size_t SshdFixture::count_log(const std::string& needle) const {
  std::istringstream in(log());
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

}  // namespace wb::test
