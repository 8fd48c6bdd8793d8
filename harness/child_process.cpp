#include "harness/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.hpp"

extern char** environ;

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;

// posix_spawn attributes and file actions as RAII (destroyed on every path).
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

std::pair<Fd, Fd> make_pipe() {
  int fds[2];
  // O_CLOEXEC: a child spawned concurrently by another thread must not inherit our pipe ends,
  // or our reader would never see end of file.
  if (pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2", errno);
  return {Fd(fds[0]), Fd(fds[1])};
}

ExitInfo decode_status(int status) {
  ExitInfo info;
  if (WIFEXITED(status)) {
    info.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    info.signal = signal_name(WTERMSIG(status));
  }
  return info;
}

// True if a process other than a zombie belongs to group `pgid`. kill(-pgid, 0) alone is not
// enough: orphaned members that died stay zombies until init reaps them, which some inits
// (container and VM init processes) do only every few seconds.
bool live_member_in_group(pid_t pgid) {
  if (::kill(-pgid, 0) != 0 && errno != EPERM) return false;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (rest >> state >> ppid >> pgrp && pgrp == pgid && state != 'Z' && state != 'X') return true;
  }
  return false;
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}
Fd::~Fd() { reset(); }
int Fd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}
void Fd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGABRT: return "ABRT";
    case SIGALRM: return "ALRM";
    case SIGFPE: return "FPE";
    case SIGHUP: return "HUP";
    case SIGILL: return "ILL";
    case SIGINT: return "INT";
    case SIGKILL: return "KILL";
    case SIGPIPE: return "PIPE";
    case SIGQUIT: return "QUIT";
    case SIGSEGV: return "SEGV";
    case SIGTERM: return "TERM";
    case SIGUSR1: return "USR1";
    case SIGUSR2: return "USR2";
    case SIGBUS: return "BUS";
    default: return "SIG" + std::to_string(sig);
  }
}

std::optional<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv,
                                                const std::map<std::string, std::string>& env,
                                                const std::optional<std::string>& cwd, int& spawn_error) {
  if (argv.empty()) throw InputError("cannot run an empty command");
  auto [out_r, out_w] = make_pipe();
  auto [err_r, err_w] = make_pipe();

  SpawnSetup s;
  // Own session => own process group whose id is the child's pid; terminal signals (Ctrl-C)
  // go to the controller, which decides what to stop.
  short flags = POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  posix_spawnattr_setflags(&s.attr, flags);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&s.attr, &none);
  posix_spawnattr_setsigdefault(&s.attr, &all);  // e.g. an ignored SIGPIPE is not inherited
  posix_spawn_file_actions_addopen(&s.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&s.actions, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&s.actions, err_w.get(), 2);
  if (cwd) posix_spawn_file_actions_addchdir_np(&s.actions, cwd->c_str());

  std::vector<std::string> env_strings;
  env_strings.reserve(env.size() + 64);
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    if (env.count(name) == 0) env_strings.push_back(std::move(entry));
  }
  for (const auto& [k, v] : env) env_strings.push_back(fmt::format("{}={}", k, v));
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  pid_t pid = -1;
  // glibc reports a failed exec (ENOENT, EACCES, a bad cwd) as posix_spawnp's return value.
  const int rc = posix_spawnp(&pid, args[0], &s.actions, &s.attr, args.data(), envp.data());
  if (rc != 0) {
    spawn_error = rc;
    return std::nullopt;
  }
  out_w.reset();
  err_w.reset();
  for (int fd : {out_r.get(), err_r.get()}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return ChildProcess(pid, std::move(out_r), std::move(err_r));
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept
    : pid_(o.pid_), out_(std::move(o.out_)), err_(std::move(o.err_)), exit_(std::move(o.exit_)) {
  o.pid_ = -1;
}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0 || exit_) return;
  kill_group(SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

const std::optional<ExitInfo>& ChildProcess::try_reap() {
  if (!exit_ && pid_ > 0) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) exit_ = decode_status(status);
  }
  return exit_;
}

bool ChildProcess::wait_until(Clock::time_point until) {
  // Polling keeps this free of SIGCHLD handlers (which would be process-wide state).
  auto pause = std::chrono::microseconds(200);
  while (!try_reap()) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(10));
  }
  return true;
}

bool ChildProcess::group_alive() {
  try_reap();
  if (!exit_) return true;
  return live_member_in_group(pid_);
}

void ChildProcess::kill_group(int sig) const noexcept {
  if (pid_ > 0) ::kill(-pid_, sig);
}

void ChildProcess::terminate_group(std::chrono::milliseconds grace) {
  const auto wait_gone = [this](Clock::time_point until) {
    while (group_alive()) {
      if (Clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  };
  if (!group_alive()) return;
  kill_group(SIGTERM);
  if (wait_gone(Clock::now() + grace)) return;
  kill_group(SIGKILL);
  wait_gone(Clock::now() + std::chrono::seconds(2));
}

bool drain_fd(int fd, std::string& sink) {
  char buf[16384];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      sink.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return false;
    } else if (errno == EINTR) {
      continue;
    } else {
      return true;  // EAGAIN: nothing more for now
    }
  }
}

}  // namespace wb
