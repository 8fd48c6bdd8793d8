#include "harness/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "core/error.hpp"
#include "harness/process_guard.hpp"

extern char** environ;

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;

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

namespace {

// Where to look for argv[0], as execvp would: the word itself if it names a path, else each
// directory of this process's PATH in turn (an empty entry is the current directory).
std::vector<std::string> exec_candidates(const std::string& program) {
  if (program.find('/') != std::string::npos) return {program};
  const char* env_path = std::getenv("PATH");
  const std::string path = env_path != nullptr ? env_path : "/bin:/usr/bin";
  std::vector<std::string> out;
  std::size_t from = 0;
  while (true) {
    const std::size_t colon = path.find(':', from);
    std::string candidate = path.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
    if (!candidate.empty()) candidate += '/';
    candidate += program;
    out.push_back(std::move(candidate));
    if (colon == std::string::npos) break;
    from = colon + 1;
  }
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& words) {
  std::vector<char*> p;
  p.reserve(words.size() + 1);
  for (auto& w : words) p.push_back(w.data());
  p.push_back(nullptr);
  return p;
}

// Reads one record from the guard, waiting for it; nullopt at end of file (the guard is gone).
std::optional<guard::Record> read_record_blocking(int fd) {
  guard::Record r;
  while (true) {
    const ssize_t n = ::read(fd, &r, sizeof r);
    if (n == static_cast<ssize_t>(sizeof r)) return r;
    if (n < 0 && errno == EINTR) continue;
    return std::nullopt;
  }
}

}  // namespace

std::optional<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv,
                                                const std::map<std::string, std::string>& env,
                                                const std::optional<std::string>& cwd, int& spawn_error,
                                                std::chrono::milliseconds guard_grace) {
  if (argv.empty()) throw InputError("cannot run an empty command");
  // Everything the guard and the command need exists before the fork: after it, the guard may
  // not allocate (process_guard.hpp).
  std::vector<std::string> env_strings;
  env_strings.reserve(env.size() + 64);
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    if (env.count(name) == 0) env_strings.push_back(std::move(entry));
  }
  for (const auto& [k, v] : env) env_strings.push_back(fmt::format("{}={}", k, v));
  std::vector<std::string> argv_copy = argv;
  std::vector<std::string> candidates = exec_candidates(argv[0]);
  const std::vector<char*> envp = pointers(env_strings);
  const std::vector<char*> args = pointers(argv_copy);
  const std::vector<char*> paths = pointers(candidates);

  auto [out_r, out_w] = make_pipe();
  auto [err_r, err_w] = make_pipe();
  auto [lifeline_r, lifeline_w] = make_pipe();
  auto [status_r, status_w] = make_pipe();
  guard::Plan plan;
  plan.argv = args.data();
  plan.envp = envp.data();
  plan.paths = paths.data();
  plan.cwd = cwd ? cwd->c_str() : nullptr;
  plan.lifeline = lifeline_r.get();
  plan.status = status_w.get();
  plan.out = out_w.get();
  plan.err = err_w.get();
  plan.grace_ms = static_cast<int>(std::clamp<long long>(guard_grace.count(), 0, 600'000));

  const pid_t guard_pid = ::fork();
  if (guard_pid < 0) throw_errno("fork", errno);
  if (guard_pid == 0) guard::run_guard(plan);

  ChildProcess child;
  child.guard_ = guard_pid;
  child.lifeline_ = std::move(lifeline_w);
  child.status_ = std::move(status_r);
  lifeline_r.reset();
  status_w.reset();
  out_w.reset();
  err_w.reset();
  const std::optional<guard::Record> first = read_record_blocking(child.status_.get());
  if (!first || first->kind != guard::kStarted) {
    child.end_guard();
    if (first && first->kind == guard::kFailed) {
      spawn_error = first->value;
      return std::nullopt;
    }
    throw Error(fmt::format("the guard process of {} ended before starting it", argv[0]));
  }
  child.pid_ = first->value;
  child.start_ticks_ = first->start_ticks;
  child.out_ = std::move(out_r);
  child.err_ = std::move(err_r);
  for (int fd : {child.out_.get(), child.err_.get(), child.status_.get()})
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)),
      start_ticks_(o.start_ticks_),
      guard_(std::exchange(o.guard_, -1)),
      lifeline_(std::move(o.lifeline_)),
      status_(std::move(o.status_)),
      out_(std::move(o.out_)),
      err_(std::move(o.err_)),
      exit_(std::move(o.exit_)) {}

ChildProcess::~ChildProcess() {
  if (guard_ <= 0) return;
  if (pid_ > 0 && !exit_) {
    kill_group(SIGKILL);
    wait_until(Clock::time_point::max());
  }
  end_guard();
}

// The guard's work is done (the leader has exited, or never started): SIGKILL it and reap it.
// It is our unreaped child, so its pid cannot name another process. Killing it before the
// lifeline closes keeps it from ending what the group still holds.
void ChildProcess::end_guard() noexcept {
  if (guard_ <= 0) return;
  ::kill(guard_, SIGKILL);
  while (waitpid(guard_, nullptr, 0) < 0 && errno == EINTR) {
  }
  guard_ = -1;
  lifeline_.reset();
  status_.reset();
}

const std::optional<ExitInfo>& ChildProcess::try_reap() {
  while (!exit_ && status_) {
    guard::Record r;
    const ssize_t n = ::read(status_.get(), &r, sizeof r);
    if (n == static_cast<ssize_t>(sizeof r)) {
      if (r.kind == guard::kExited) exit_ = decode_status(r.value);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      break;
    } else {
      // The guard is gone without a word: only SIGKILL ends it early, and the leader's
      // parent-death signal (SIGKILL) then ended the leader too.
      status_.reset();
      ExitInfo killed;
      killed.signal = signal_name(SIGKILL);
      exit_ = killed;
    }
  }
  return exit_;
}

bool ChildProcess::wait_until(Clock::time_point until) {
  while (!try_reap()) {
    const auto now = Clock::now();
    if (now >= until) return false;
    int timeout_ms = 60'000;
    if (until != Clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left + 1, 0, 60'000));
    }
    pollfd p{status_.get(), POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) < 0 && errno != EINTR) throw_errno("poll", errno);
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
