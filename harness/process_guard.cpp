#include "harness/process_guard.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

// Only async-signal-safe calls below (see process_guard.hpp): no allocation, no stdio, no fmt.
namespace wb::guard {
namespace {

void write_record(int fd, std::int32_t kind, std::int32_t value, std::uint64_t ticks = 0) noexcept {
  Record r;
  r.kind = kind;
  r.value = value;
  r.start_ticks = ticks;
  while (::write(fd, &r, sizeof r) < 0 && errno == EINTR) {
  }
}

// "/proc/PID/stat" into `buf` (at least 32 bytes).
void stat_path(pid_t pid, char* buf) noexcept {
  char digits[16];
  int n = 0;
  for (auto v = static_cast<unsigned long>(pid); n == 0 || v > 0; v /= 10)
    digits[n++] = static_cast<char>('0' + v % 10);
  const char prefix[] = "/proc/";
  int at = 0;
  for (const char* p = prefix; *p != '\0'; ++p) buf[at++] = *p;
  while (n > 0) buf[at++] = digits[--n];
  for (const char* p = "/stat"; *p != '\0'; ++p) buf[at++] = *p;
  buf[at] = '\0';
}

// Field 22 of /proc/PID/stat (start time in clock ticks after boot), 0 if unreadable. The
// command is our unreaped child here, so its entry exists.
std::uint64_t start_ticks_of(pid_t pid) noexcept {
  char path[32];
  stat_path(pid, path);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf - 1)) < 0 && errno == EINTR) {
  }
  ::close(fd);
  if (n <= 0) return 0;
  // Field 2 (the name) is in parentheses and may hold spaces: count from the last ')'.
  ssize_t i = n - 1;
  while (i >= 0 && buf[i] != ')') --i;
  if (i < 0) return 0;
  int field = 2;
  for (++i; i < n && field < 22; ++i) {
    if (buf[i] == ' ') ++field;
  }
  std::uint64_t ticks = 0;
  for (; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i)
    ticks = ticks * 10 + static_cast<std::uint64_t>(buf[i] - '0');
  return ticks;
}

// The state (field 3) and process group (field 5) from /proc/PID/stat text.
bool state_and_group(const char* buf, ssize_t n, char& state, long& pgrp) noexcept {
  ssize_t i = n - 1;
  while (i >= 0 && buf[i] != ')') --i;
  if (i < 0 || i + 2 >= n) return false;
  state = buf[i + 2];
  int field = 3;
  for (i += 2; i < n && field < 5; ++i) {
    if (buf[i] == ' ') ++field;
  }
  bool negative = false;
  if (i < n && buf[i] == '-') {
    negative = true;
    ++i;
  }
  long v = 0;
  bool digits = false;
  for (; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) {
    v = v * 10 + (buf[i] - '0');
    digits = true;
  }
  pgrp = negative ? -v : v;
  return digits;
}

// Whether a process of group `pgid` lives, zombies aside: kill(-pgid, 0) also counts zombies,
// which some inits (of containers and VMs) reap only every few seconds.
bool live_member(pid_t pgid) noexcept {
  if (::kill(-pgid, 0) != 0 && errno == ESRCH) return false;
  const int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return true;
  alignas(8) char entries[4096];
  bool found = false;
  while (!found) {
    const ssize_t n = ::getdents64(proc, entries, sizeof entries);
    if (n <= 0) break;
    for (ssize_t at = 0; at < n && !found;) {
      const auto* d = reinterpret_cast<const dirent64*>(entries + at);
      at += d->d_reclen;
      if (d->d_name[0] < '1' || d->d_name[0] > '9') continue;
      char path[300];
      int len = 0;
      for (const char* c = d->d_name; *c != '\0' && len < 280; ++c) path[len++] = *c;
      for (const char* c = "/stat"; *c != '\0'; ++c) path[len++] = *c;
      path[len] = '\0';
      const int fd = ::openat(proc, path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char text[512];
      const ssize_t got = ::read(fd, text, sizeof text);
      ::close(fd);
      char state = 0;
      long pgrp = 0;
      if (got > 0 && state_and_group(text, got, state, pgrp) && pgrp == pgid && state != 'Z' && state != 'X')
        found = true;
    }
  }
  ::close(proc);
  return found;
}

std::int64_t now_ms() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

void pause_ms(long ms) noexcept {
  timespec ts{ms / 1000, (ms % 1000) * 1'000'000};
  ::nanosleep(&ts, nullptr);
}

void close_fds(unsigned first, unsigned last) noexcept {
  if (first > last) return;
  if (::close_range(first, last, 0) == 0) return;
  // No close_range (a kernel before 5.9): one by one, up to the descriptor limit.
  rlimit lim{};
  unsigned top = 65536;
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < top) top = static_cast<unsigned>(lim.rlim_cur);
  for (unsigned fd = first; fd <= last && fd < top; ++fd) ::close(static_cast<int>(fd));
}

// Keeps the descriptors *fds[0..n) (moved above 2 if needed), puts /dev/null on 0, 1 and 2 and
// closes everything else: no other guard's lifeline and no controller socket may stay open here
// (docs/decisions.md#process-guard).
void keep_only(int* const* fds, int n) noexcept {
  int keep[8];
  for (int i = 0; i < n; ++i) {
    if (*fds[i] < 3) *fds[i] = ::fcntl(*fds[i], F_DUPFD_CLOEXEC, 3);
    keep[i] = *fds[i];
  }
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3 && null >= 0; ++fd) {
    if (null != fd) ::dup2(null, fd);
  }
  for (int i = 1; i < n; ++i) {  // insertion sort of a handful
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; --j) {
      const int t = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = t;
    }
  }
  unsigned from = 3;
  for (int i = 0; i < n; ++i) {
    if (keep[i] < 0) continue;
    const auto fd = static_cast<unsigned>(keep[i]);
    if (fd > from) close_fds(from, fd - 1);
    if (fd + 1 > from) from = fd + 1;
  }
  close_fds(from, ~0U);
}

// The command, in the guard's child: its own session, default signal handling, stdin on
// /dev/null, stdout and stderr on the pipes; execs argv[0] from the first candidate path that
// can be executed. On failure writes errno to `exec_err` (closed by a successful exec).
[[noreturn]] void run_command(const Plan& p, int out, int err, int exec_err, pid_t guard) noexcept {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != guard) ::_exit(127);  // the guard died before the prctl
  ::setsid();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);  // an ignored SIGPIPE too
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::dup2(out, 1);
  ::dup2(err, 2);
  int error = 0;
  if (p.cwd != nullptr && ::chdir(p.cwd) != 0) {
    error = errno;
  } else {
    // execvp's rules: a candidate that is missing is skipped, one that exists but cannot be
    // executed is remembered (EACCES wins over ENOENT), any other error stops the search.
    bool denied = false;
    error = ENOENT;
    for (char* const* path = p.paths; *path != nullptr; ++path) {
      ::execve(*path, p.argv, p.envp);
      if (errno == EACCES) {
        denied = true;
      } else if (errno != ENOENT && errno != ENOTDIR && errno != ENAMETOOLONG && errno != ELOOP) {
        error = errno;
        denied = false;
        break;
      }
    }
    if (denied) error = EACCES;
  }
  while (::write(exec_err, &error, sizeof error) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

// The controller is gone: SIGTERM to the group, SIGKILL after the grace period if any of it is
// left. `leader` is set while the command (our child) is not yet reaped.
void end_group(pid_t pgid, bool leader, int grace_ms) noexcept {
  ::kill(-pgid, SIGTERM);
  const std::int64_t until = now_ms() + grace_ms;
  while (true) {
    if (leader && ::waitpid(pgid, nullptr, WNOHANG) == pgid) leader = false;
    if (!leader && !live_member(pgid)) return;
    if (now_ms() >= until) break;
    pause_ms(10);
  }
  ::kill(-pgid, SIGKILL);
  const std::int64_t give_up = now_ms() + 1000;
  while (leader && now_ms() < give_up) {
    if (::waitpid(pgid, nullptr, WNOHANG) == pgid) break;
    pause_ms(10);
  }
}

}  // namespace

void run_guard(const Plan& plan) noexcept {
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  int lifeline = plan.lifeline, status = plan.status, out = plan.out, err = plan.err;
  int* const kept[] = {&lifeline, &status, &out, &err};
  keep_only(kept, 4);
  if (lifeline < 0 || status < 0 || out < 0 || err < 0) {
    if (status >= 0) write_record(status, kFailed, EMFILE);
    ::_exit(0);
  }
  ::setsid();
  ::prctl(PR_SET_NAME, "wb-guard");

  int exec_pipe[2];
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    write_record(status, kFailed, errno);
    ::_exit(0);
  }
  const pid_t self = ::getpid();
  // vfork, as posix_spawn does: the guard is a copy of the whole controller, and copying its
  // page tables again is most of a fork's cost. The child only makes system calls on its own
  // stack frame before execve or _exit, which is what vfork allows.
  const pid_t command = ::vfork();
  if (command == 0) run_command(plan, out, err, exec_pipe[1], self);
  ::close(exec_pipe[1]);
  ::close(out);  // only the command holds them now: its reader sees end of file when it is done
  ::close(err);
  if (command < 0) {
    write_record(status, kFailed, errno);
    ::_exit(0);
  }
  int exec_error = 0;
  ssize_t got = 0;
  while ((got = ::read(exec_pipe[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  ::close(exec_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    while (::waitpid(command, nullptr, 0) < 0 && errno == EINTR) {
    }
    write_record(status, kFailed, exec_error);
    ::_exit(0);
  }
  write_record(status, kStarted, command, start_ticks_of(command));

  // A pidfd makes the command's exit a poll event; without one (a kernel before 5.3) poll
  // every 50 ms.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, command, 0));
  bool leader = true;
  while (true) {
    const bool watch_leader = leader && pidfd >= 0;
    pollfd events[2] = {{lifeline, POLLIN, 0}, {watch_leader ? pidfd : -1, POLLIN, 0}};
    ::poll(events, 2, watch_leader ? -1 : (leader ? 50 : 100));
    int wait_status = 0;
    if (leader && ::waitpid(command, &wait_status, WNOHANG) == command) {
      leader = false;
      write_record(status, kExited, wait_status);
    }
    if (events[0].revents != 0) {  // the controller is gone (nothing is ever written)
      end_group(command, leader, plan.grace_ms);
      ::_exit(0);
    }
    // The group id stays reserved while a member lives (zombies too), so a group found here is
    // the command's.
    if (!leader && !live_member(command)) ::_exit(0);
  }
}

}  // namespace wb::guard
