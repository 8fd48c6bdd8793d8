#include "harness/local_executor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>

#include "core/error.hpp"
#include "harness/child_process.hpp"
#include "harness/shell_quote.hpp"

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A shell reports "cannot execute" as 127 (not found) or 126 (found but not executable); we do
// the same so a caller treats local and remote hosts alike.
CommandResult spawn_failure(const CommandSpec& spec, int err) {
  CommandResult r;
  r.exit_status = err == ENOENT ? 127 : 126;
  r.err = fmt::format("wb: cannot execute {}{}: {}\n", spec.argv[0],
                      spec.cwd ? " in " + *spec.cwd : std::string(), std::strerror(err));
  return r;
}

Clock::time_point deadline_of(Clock::time_point start, milliseconds d) {
  return d.count() > 0 ? start + d : Clock::time_point::max();
}

int poll_timeout_ms(Clock::time_point until) {
  if (until == Clock::time_point::max()) return -1;
  const auto left = std::chrono::duration_cast<milliseconds>(until - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left + 1, 0, 60'000));
}

std::string tail(const std::string& s, std::size_t n = 2000) {
  return s.size() <= n ? s : s.substr(s.size() - n);
}

void fill_exit(const ChildProcess& child, CommandResult& r) {
  if (const auto& e = child.exit_info()) {
    r.exit_status = e->signal ? -1 : e->exit_status;
    r.exit_signal = e->signal;
  }
}

// A started command. The reader thread owns nothing: it reads the two pipe descriptors (owned by
// child_, closed only after the thread is joined) and a wake-up pipe, and appends under mutex_.
class LocalProcess final : public Process {
 public:
  LocalProcess(ChildProcess child, milliseconds deadline, milliseconds grace, std::string what)
      : child_(std::move(child)),
        deadline_(deadline_of(Clock::now(), deadline)),
        grace_(grace),
        what_(std::move(what)) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) throw_errno("pipe2", errno);
    wake_r_ = Fd(fds[0]);
    wake_w_ = Fd(fds[1]);
    reader_ = std::thread([this] { read_loop(); });
  }

  ~LocalProcess() override {
    try {
      stop(grace_);
    } catch (...) {
      // Destructors never throw; ChildProcess's destructor still SIGKILLs the group.
    }
    finish_reader();
  }

  std::optional<std::string> read_line(milliseconds timeout) override {
    const auto until = std::min(Clock::now() + timeout, deadline_);
    std::unique_lock lock(mutex_);
    cv_.wait_until(lock, until, [&] { return out_.find('\n') != std::string::npos || out_eof_; });
    const auto nl = out_.find('\n');
    if (nl != std::string::npos) {
      std::string line = out_.substr(0, nl);
      out_.erase(0, nl + 1);
      return line;
    }
    if (out_eof_) {
      if (out_.empty()) return std::nullopt;
      return std::exchange(out_, {});
    }
    const std::string err_tail = tail(err_);
    lock.unlock();
    const bool past_deadline = Clock::now() >= deadline_;
    if (past_deadline) stop(grace_);
    throw Error(fmt::format("{}: {} waiting for a line of output; stderr: {}", describe(),
                            past_deadline ? "deadline passed" : "timed out", err_tail));
  }

  std::optional<CommandResult> wait(milliseconds timeout) override {
    if (result_) return result_;
    const auto until = std::min(Clock::now() + timeout, deadline_);
    bool done = child_.wait_until(until);
    if (done) {
      std::unique_lock lock(mutex_);
      done = cv_.wait_until(lock, until, [&] { return out_eof_ && err_eof_; });
    }
    if (done) return finish(false);
    if (Clock::now() >= deadline_) {
      child_.terminate_group(grace_);
      return finish(true);
    }
    return std::nullopt;
  }

  CommandResult stop(milliseconds grace) override {
    if (result_) return *result_;
    child_.terminate_group(grace);
    return finish(false);
  }

  std::string describe() const override { return what_; }
  ProcessGroup group() const override { return {child_.pid(), child_.start_ticks()}; }

 private:
  CommandResult finish(bool timed_out) {
    if (!child_.exit_info()) child_.wait_until(Clock::time_point::max());
    {
      // The group is gone; give the reader a moment to see end of file, but a process that
      // left the group may hold the pipes open forever.
      std::unique_lock lock(mutex_);
      cv_.wait_for(lock, std::chrono::seconds(1), [&] { return out_eof_ && err_eof_; });
    }
    finish_reader();
    CommandResult r;
    fill_exit(child_, r);
    r.timed_out = timed_out;
    std::lock_guard lock(mutex_);
    r.out = std::move(out_);
    r.err = std::move(err_);
    result_ = r;
    return r;
  }

  void finish_reader() noexcept {
    if (!reader_.joinable()) return;
    const char c = 'x';
    [[maybe_unused]] auto n = ::write(wake_w_.get(), &c, 1);
    reader_.join();
  }

  void read_loop() {
    bool out_open = true, err_open = true;
    while (out_open || err_open) {
      pollfd fds[3] = {{child_fd_out(), POLLIN, 0}, {child_fd_err(), POLLIN, 0}, {wake_r_.get(), POLLIN, 0}};
      if (!out_open) fds[0].fd = -1;
      if (!err_open) fds[1].fd = -1;
      if (::poll(fds, 3, -1) < 0 && errno != EINTR) break;
      if (fds[2].revents != 0) break;
      std::lock_guard lock(mutex_);
      if (out_open && fds[0].revents != 0) out_open = drain_fd(fds[0].fd, out_);
      if (err_open && fds[1].revents != 0) err_open = drain_fd(fds[1].fd, err_);
      out_eof_ = !out_open;
      err_eof_ = !err_open;
      cv_.notify_all();
    }
  }
  int child_fd_out() { return child_.out().get(); }
  int child_fd_err() { return child_.err().get(); }

  ChildProcess child_;
  const Clock::time_point deadline_;
  const milliseconds grace_;
  const std::string what_;
  Fd wake_r_, wake_w_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string out_;       // GUARDED_BY(mutex_): stdout not yet consumed by read_line
  std::string err_;       // GUARDED_BY(mutex_)
  bool out_eof_ = false;  // GUARDED_BY(mutex_)
  bool err_eof_ = false;  // GUARDED_BY(mutex_)
  std::optional<CommandResult> result_;
  std::thread reader_;  // last member: started after everything it reads exists
};

// A start() whose program could not be executed: it "exited" with 126/127 at once.
class FailedProcess final : public Process {
 public:
  FailedProcess(CommandResult r, std::string what) : result_(std::move(r)), what_(std::move(what)) {}
  std::optional<std::string> read_line(milliseconds) override { return std::nullopt; }
  std::optional<CommandResult> wait(milliseconds) override { return result_; }
  CommandResult stop(milliseconds) override { return result_; }
  std::string describe() const override { return what_; }
  ProcessGroup group() const override { return {}; }

 private:
  CommandResult result_;
  std::string what_;
};

class LocalExecutor final : public Executor {
 public:
  explicit LocalExecutor(LocalExecutorOptions options) : options_(options) {}

  CommandResult run(const CommandSpec& spec) override {
    check_command_spec(spec);
    int err = 0;
    auto child = ChildProcess::spawn(spec.argv, spec.env, spec.cwd, err, options_.kill_grace);
    if (!child) return spawn_failure(spec, err);
    return collect(*child, deadline_of(Clock::now(), spec.deadline));
  }

  std::unique_ptr<Process> start(const CommandSpec& spec) override {
    check_command_spec(spec);
    int err = 0;
    auto child = ChildProcess::spawn(spec.argv, spec.env, spec.cwd, err, options_.kill_grace);
    const std::string what = fmt::format("local: {}", shell_join(spec.argv));
    if (!child) return std::make_unique<FailedProcess>(spawn_failure(spec, err), what);
    const std::string with_pid = fmt::format("pgid {} on {}", child->pid(), what);
    return std::make_unique<LocalProcess>(std::move(*child), spec.deadline, options_.kill_grace, with_pid);
  }

  void upload(const std::string& local_path, const std::string& remote_path, int mode) override {
    namespace fs = std::filesystem;
    const fs::path target(remote_path);
    const fs::path temp = target.parent_path() /
                          (".wb-upload-" + std::to_string(::getpid()) + "-" + target.filename().string());
    std::error_code ec;
    fs::copy_file(local_path, temp, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::permissions(temp, static_cast<fs::perms>(mode), ec);
    if (!ec) fs::rename(temp, target, ec);
    if (ec) {
      fs::remove(temp, ec);
      throw Error(fmt::format("local: cannot copy {} to {}: {}", local_path, remote_path, ec.message()));
    }
  }

  std::string describe() const override { return "local"; }

 private:
  // Reads both pipes until they close and the leader has exited, enforcing the deadline on
  // the whole group (a command may close its output and keep running).
  CommandResult collect(ChildProcess& child, Clock::time_point deadline) {
    CommandResult r;
    bool out_open = true, err_open = true;
    auto next_step = deadline;  // deadline, then the SIGKILL time, then give-up time
    int step = 0;               // 0 running, 1 TERM sent, 2 KILL sent
    while (true) {
      if (out_open || err_open) {
        pollfd fds[2] = {{out_open ? child.out().get() : -1, POLLIN, 0},
                         {err_open ? child.err().get() : -1, POLLIN, 0}};
        if (::poll(fds, 2, poll_timeout_ms(next_step)) < 0 && errno != EINTR) throw_errno("poll", errno);
        if (out_open && fds[0].revents != 0) out_open = drain_fd(fds[0].fd, r.out);
        if (err_open && fds[1].revents != 0) err_open = drain_fd(fds[1].fd, r.err);
      } else if (child.wait_until(next_step)) {
        break;  // output closed and the leader exited
      }
      if (Clock::now() < next_step) continue;
      if (step == 0) {
        r.timed_out = true;
        child.kill_group(SIGTERM);
        next_step = Clock::now() + options_.kill_grace;
      } else if (step == 1) {
        child.kill_group(SIGKILL);
        next_step = Clock::now() + milliseconds(1000);
      } else {
        break;  // a process that left our group holds the pipes; stop reading
      }
      ++step;
    }
    if (r.timed_out) child.terminate_group(options_.kill_grace);
    child.wait_until(Clock::time_point::max());
    fill_exit(child, r);
    return r;
  }

  const LocalExecutorOptions options_;
};

}  // namespace

std::unique_ptr<Executor> make_local_executor(LocalExecutorOptions options) {
  return std::make_unique<LocalExecutor>(options);
}

}  // namespace wb
