#pragma once
// Test helpers that run real programs: Child (a started server, stopped in its destructor even
// when the test fails), run_command (run to completion, capture stdout/stderr and exit status),
// free_port and wait_for_port (loopback only).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace wbtest {

inline std::vector<char*> argv_of(std::vector<std::string>& args) {
  std::vector<char*> v;
  for (auto& a : args) v.push_back(a.data());
  v.push_back(nullptr);
  return v;
}

// A started process in its own process group; the destructor sends SIGTERM to the group, then
// SIGKILL after 3 s, and reaps it.
class Child {
 public:
  explicit Child(std::vector<std::string> args, bool capture_stdout = false) {
    int fds[2] = {-1, -1};
    if (capture_stdout && pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      setpgid(0, 0);
      if (capture_stdout) dup2(fds[1], 1);
      int devnull = open("/dev/null", O_RDWR);
      if (!capture_stdout) dup2(devnull, 1);
      dup2(devnull, 0);
      auto argv = argv_of(args);
      execv(argv[0], argv.data());
      _exit(127);
    }
    setpgid(pid_, pid_);
    if (capture_stdout) {
      close(fds[1]);
      out_fd_ = fds[0];
    }
  }
  ~Child() noexcept { stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }

  // Reads stdout until a line starting with `prefix` arrives; returns that line ("" on timeout/EOF).
  std::string wait_line(const std::string& prefix, double timeout_s = 10) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      auto nl = buf_.find('\n');
      while (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        if (line.rfind(prefix, 0) == 0) return line;
        nl = buf_.find('\n');
      }
      pollfd p{out_fd_, POLLIN, 0};
      if (poll(&p, 1, 100) > 0) {
        char tmp[4096];
        ssize_t n = read(out_fd_, tmp, sizeof tmp);
        if (n <= 0) return "";
        buf_.append(tmp, static_cast<std::size_t>(n));
      }
    }
    return "";
  }

  void stop() noexcept {
    if (pid_ <= 0) return;
    kill(-pid_, SIGTERM);
    for (int i = 0; i < 300; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (out_fd_ >= 0) close(out_fd_);
    out_fd_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string buf_;
};

struct CommandResult {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

// Runs a command to completion (killed after `timeout_s`) and captures its output.
inline CommandResult run_command(std::vector<std::string> args, double timeout_s = 120) {
  int o[2], e[2];
  if (pipe2(o, O_CLOEXEC) != 0 || pipe2(e, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    dup2(o[1], 1);
    dup2(e[1], 2);
    auto argv = argv_of(args);
    execv(argv[0], argv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(o[1]);
  close(e[1]);
  CommandResult r;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool open_o = true, open_e = true;
  while (open_o || open_e) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      break;
    }
    pollfd p[2] = {{open_o ? o[0] : -1, POLLIN, 0}, {open_e ? e[0] : -1, POLLIN, 0}};
    if (poll(p, 2, 100) <= 0) continue;
    char tmp[65536];
    for (int k = 0; k < 2; ++k) {
      if (!(p[k].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(p[k].fd, tmp, sizeof tmp);
      if (n <= 0) {
        (k == 0 ? open_o : open_e) = false;
      } else {
        (k == 0 ? r.out : r.err).append(tmp, static_cast<std::size_t>(n));
      }
    }
  }
  close(o[0]);
  close(e[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

// A TCP port on 127.0.0.1 that was free a moment ago.
inline int free_port() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  close(s);
  return ntohs(a.sin_port);
}

// Sends `request` to 127.0.0.1:port and returns what arrives until `until` is seen (or 2 s pass).
inline std::string tcp_exchange(int port, const std::string& request, const std::string& until) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string got;
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    if (!request.empty()) (void)!write(s, request.data(), request.size());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (got.find(until) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{s, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char tmp[8192];
      ssize_t n = read(s, tmp, sizeof tmp);
      if (n <= 0) break;
      got.append(tmp, static_cast<std::size_t>(n));
    }
  }
  close(s);
  return got;
}

// Waits until 127.0.0.1:port accepts connections.
inline bool wait_for_port(int port, double timeout_s = 10) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    bool ok = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(s);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace wbtest
