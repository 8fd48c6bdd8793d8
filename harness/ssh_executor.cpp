#include "harness/ssh_executor.hpp"

#include <fcntl.h>
// ssh_send_keepalive is declared with the server API but sends the keepalive@openssh.com
// global request that OpenSSH clients send too.
#include <libssh/server.h>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "harness/remote_command.hpp"
#include "harness/shell_quote.hpp"
#include "harness/ssh_connection.hpp"
#include "harness/ssh_executor_impl.hpp"

namespace wb {
namespace ssh_detail {

void SshExecutorImpl::connect_locked() {
  std::string last_error;
  auto pause = options_.reconnect_backoff;
  const int attempts = std::max(1, options_.reconnect_attempts);
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    try {
      session_ = ssh::connect(options_);
      event_ = ssh_event_new();
      if (event_ == nullptr || ssh_event_add_session(event_, session_.get()) != SSH_OK) {
        throw Error(where_ + ": cannot create an ssh event");
      }
      ++generation_;
      ++connections_;
      last_traffic_ = Clock::now();
      kill_lost_groups_locked();
      return;
    } catch (const ssh::ConnectRefused&) {
      drop_session_locked();
      throw;  // retrying cannot fix a refused host key or key
    } catch (const Error& e) {
      drop_session_locked();
      last_error = e.what();
    }
    if (attempt < attempts) {
      std::this_thread::sleep_for(pause);
      pause *= 2;
    }
  }
  throw Error(
      fmt::format("{}: cannot connect after {} attempts; last error: {}", where_, attempts, last_error));
}

void SshExecutorImpl::ensure_connected_locked() {
  // Take in whatever the connection has to say first (a close while idle), so that a dead connection
  // reconnects instead of failing the command; poll without waiting while polls find something
  // (docs/decisions.md#ssh-idle-close).
  for (int round = 0; round < 8 && alive_locked(); ++round) {
    if (!pump_locked(0)) break;
  }
  if (alive_locked()) return;
  drop_session_locked();
  connect_locked();
}

void SshExecutorImpl::drop_session_locked() noexcept {
  for (SshProcess* p : live_) p->connection_dropped();
  for (auto& spare : spares_) spare.channel->release();  // freed with the session
  spares_.clear();
  if (event_ != nullptr) {
    if (session_) ssh_event_remove_session(event_, session_.get());
    ssh_event_free(event_);
    event_ = nullptr;
  }
  session_.reset();  // frees every channel of the session
}

// Commands whose connection was lost may still run on the host: kill their groups now.
void SshExecutorImpl::kill_lost_groups_locked() noexcept {
  auto groups = std::exchange(lost_groups_, {});
  for (long pgid : groups) {
    try {
      kill_group_locked(pgid, milliseconds(200));
    } catch (...) {
      // Best effort: the host may have rebooted and reused nothing of ours.
    }
  }
}

// sshd frees a closed session lazily, so at MaxSessions a channel may be refused though a session is
// about to be free: retry a refusal on a live connection for up to 500 ms, pumping the connection
// (docs/decisions.md#ssh-spare-channels).
std::unique_ptr<ssh::Channel> SshExecutorImpl::open_channel_locked() {
  const auto until = Clock::now() + milliseconds(500);
  while (true) {
    try {
      return std::make_unique<ssh::Channel>(session_.get());
    } catch (const Error&) {
      if (!alive_locked() || Clock::now() >= until) throw;
      pump_locked(10);
    }
  }
}

std::unique_ptr<ssh::Channel> SshExecutorImpl::exec_locked(const std::string& command_line, bool use_waiting,
                                                           bool* waited) {
  ensure_connected_locked();
  if (waited != nullptr) *waited = false;
  for (int attempt = 0;; ++attempt) {
    try {
      std::unique_ptr<ssh::Channel> channel;
      if (use_waiting) {
        channel = take_waiting_locked(command_line);
        if (channel && waited != nullptr) *waited = true;
      }
      if (!channel) {
        channel = take_opened_locked();
        if (!channel) channel = open_channel_locked();
        if (channel->exec(command_line.c_str(), true) != 1) {
          ssh::throw_error(session_.get(), where_ + ": starting a command");
        }
      }
      // The next command's channel, and its waiting shell, start while this one runs.
      open_ahead_locked();
      return channel;
    } catch (const Error&) {
      // A session that died while idle fails here before anything ran: reconnect, try again.
      if (attempt > 0 || alive_locked()) throw;
      drop_session_locked();
      connect_locked();
    }
  }
}

// A fresh channel costs two round trips and sshd's session and login shell before the command runs,
// so channels for the next two commands are opened ahead and run waiting_shell(); a refused spare is
// dropped, and commands take spares first (docs/decisions.md#ssh-spare-channels).
void SshExecutorImpl::open_ahead_locked() noexcept {
  const std::size_t want = options_.shell_ahead ? 2 : 1;
  while (spares_.size() < want && alive_locked()) {
    std::unique_ptr<ssh::Channel> channel = ssh::Channel::open_ahead(session_.get());
    if (!channel) break;
    spares_.push_back(Spare{std::move(channel), Spare::State::kOpening});
  }
  advance_spare_locked();
}

// Moves the spares on without waiting: after each poll of the connection and when one is opened.
void SshExecutorImpl::advance_spare_locked() noexcept {
  if (!options_.shell_ahead) return;
  for (auto it = spares_.begin(); it != spares_.end();) {
    Spare& spare = *it;
    int progress = 1;
    if (spare.state == Spare::State::kOpening) {
      progress = spare.channel->poll_open();  // -1: refused, the next command opens its own
      if (progress > 0) spare.state = Spare::State::kStarting;
      if (progress > 0) progress = spare.channel->exec(waiting_shell().c_str(), false);
    } else if (spare.state == Spare::State::kStarting) {
      progress = spare.channel->exec(waiting_shell().c_str(), false);
    }
    if (progress > 0) spare.state = Spare::State::kWaiting;
    it = progress < 0 ? spares_.erase(it) : std::next(it);
  }
}

// The oldest spare whose open was confirmed and nothing started on it (shell_ahead off), or
// nullptr; a refused one is dropped.
std::unique_ptr<ssh::Channel> SshExecutorImpl::take_opened_locked() {
  while (!spares_.empty() && spares_.front().state == Spare::State::kOpening) {
    std::unique_ptr<ssh::Channel> channel = std::move(spares_.front().channel);
    spares_.pop_front();
    if (channel->finish_open()) return channel;
  }
  return nullptr;
}

// The oldest spare's waiting shell given command_line to run, or nullptr if there is none that
// can take it: the oldest spare is not yet running its shell (its exec not even sent), or its
// exec was refused, its shell already gone (EOF, closed) or the write failed (that spare dropped).
std::unique_ptr<ssh::Channel> SshExecutorImpl::take_waiting_locked(const std::string& command_line) {
  if (spares_.empty() || spares_.front().state == Spare::State::kOpening) return nullptr;
  const bool starting = spares_.front().state == Spare::State::kStarting;
  std::unique_ptr<ssh::Channel> channel = std::move(spares_.front().channel);
  spares_.pop_front();
  if (starting && channel->exec(waiting_shell().c_str(), true) != 1) return nullptr;
  ssh_channel ch = channel->get();
  if (ssh_channel_is_open(ch) == 0 || ssh_channel_is_eof(ch) != 0) return nullptr;
  const std::string input = waiting_shell_input(command_line);
  if (ssh_channel_write(ch, input.data(), static_cast<std::uint32_t>(input.size())) !=
      static_cast<int>(input.size()))
    return nullptr;
  return channel;
}

RemoteCommand SshExecutorImpl::begin_locked(const CommandSpec& spec, bool guarded) {
  RemoteCommand cmd;
  cmd.what = shell_join(spec.argv);
  const std::string command_line =
      guarded ? remote_start_line(spec, options_.kill_grace) : remote_command_line(spec);
  bool waited = false;
  cmd.channel = exec_locked(command_line, true, &waited);
  cmd.generation = generation_;
  // The first line is the process group id: without it we could not kill the command. It is
  // written before the command starts, so waiting for it is part of starting (not of the
  // command's deadline, which finish_locked enforces).
  const auto until = Clock::now() + options_.connect_timeout;
  while (true) {
    drain_locked(cmd);
    const auto nl = cmd.out.find('\n');
    if (nl != std::string::npos) {
      // "PGID", or "PGID TICKS" from remote_start_line (TICKS empty where there is no /proc).
      const std::string line = cmd.out.substr(0, nl);
      const std::string id = line.substr(0, line.find(' '));
      const std::string ticks = line.size() > id.size() ? line.substr(id.size() + 1) : std::string();
      if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos ||
          ticks.find_first_not_of("0123456789") != std::string::npos || id.size() > 18 || ticks.size() > 19) {
        throw Error(fmt::format("{}: {}: expected a process group id, got \"{}\"", where_, cmd.what, line));
      }
      cmd.pgid = std::stol(id);
      cmd.start_ticks = ticks.empty() ? 0 : std::stoull(ticks);
      cmd.out.erase(0, nl + 1);
      return cmd;
    }
    if (cmd.eof && waited && cmd.out.empty() && cmd.err.empty()) {
      // The waiting shell ended without a word (killed on the host, say) before it read the
      // line: nothing ran. Run the line once more on a channel of its own.
      release_locked(cmd);
      cmd.eof = false;
      waited = false;
      cmd.channel = exec_locked(command_line, false);
      cmd.generation = generation_;
      continue;
    }
    if (cmd.eof) {
      throw Error(
          fmt::format("{}: {}: the command wrapper (setsid, sh) failed: {}", where_, cmd.what, cmd.err));
    }
    if (!alive_locked()) lost_locked(cmd, "starting");
    if (Clock::now() >= until) {
      throw Error(fmt::format("{}: {}: no process group id within {} ms", where_, cmd.what,
                              options_.connect_timeout.count()));
    }
    pump_locked(ms_until(until, 1000));
  }
}

bool SshExecutorImpl::pump_locked(int timeout_ms) {
  const auto keepalive = std::chrono::duration_cast<milliseconds>(options_.keepalive);
  if (keepalive.count() > 0) timeout_ms = std::min<int>(timeout_ms, static_cast<int>(keepalive.count()));
  if (!alive_locked()) return false;
  const int rc = ssh_event_dopoll(event_, timeout_ms);
  advance_spare_locked();
  const auto now = Clock::now();
  if (rc == SSH_OK) {
    last_traffic_ = now;
  } else if (keepalive.count() > 0 && now - last_traffic_ >= keepalive && alive_locked()) {
    // A quiet connection: ask the server to answer, so a vanished host shows as an error
    // within the session timeout instead of never.
    ssh_send_keepalive(session_.get());
    last_traffic_ = now;
  }
  // Keep every started process's channel drained, so its window never fills and a SUT never
  // blocks writing to stdout while we run other commands.
  for (SshProcess* p : live_) p->drain();
  return rc == SSH_OK;
}

void SshExecutorImpl::drain_locked(RemoteCommand& cmd) {
  if (cmd.eof || cmd.generation != generation_ || !session_) return;
  char buf[16384];
  for (int is_stderr : {0, 1}) {
    std::string& sink = is_stderr != 0 ? cmd.err : cmd.out;
    while (true) {
      const int n = ssh_channel_read_nonblocking(cmd.channel->get(), buf, sizeof buf, is_stderr);
      if (n <= 0) break;
      sink.append(buf, static_cast<std::size_t>(n));
    }
  }
  cmd.eof = ssh_channel_is_eof(cmd.channel->get()) != 0;
}

bool SshExecutorImpl::finished(const RemoteCommand& cmd) const {
  if (!cmd.eof) return false;
  if (cmd.channel->exit_status || cmd.channel->exit_signal) return true;
  return ssh_channel_is_closed(cmd.channel->get()) != 0;
}

CommandResult SshExecutorImpl::result_of(RemoteCommand& cmd, bool timed_out) const {
  CommandResult r;
  r.out = std::move(cmd.out);
  r.err = std::move(cmd.err);
  r.exit_signal = cmd.channel->exit_signal;
  r.exit_status = r.exit_signal ? -1 : cmd.channel->exit_status.value_or(-1);
  r.timed_out = timed_out;
  return r;
}

void SshExecutorImpl::kill_group_locked(long pgid, milliseconds grace) {
  if (pgid <= 1) return;
  // TERM, poll until the group is empty or the grace ends, then KILL — one round trip.
  const long steps = std::max<long>(1, grace.count() / 50);
  const std::string script = fmt::format(
      "kill -TERM -{0} 2>/dev/null; i=0; while [ $i -lt {1} ] && kill -0 -{0} 2>/dev/null; "
      "do sleep 0.05; i=$((i+1)); done; kill -KILL -{0} 2>/dev/null; true",
      pgid, steps);
  RemoteCommand killer;
  killer.what = "kill -" + std::to_string(pgid);
  killer.channel = exec_locked(script);
  killer.generation = generation_;
  const auto bound = Clock::now() + grace + options_.connect_timeout;
  while (!finished(killer)) {
    if (!alive_locked()) lost_locked(killer, "killing process group " + std::to_string(pgid));
    if (Clock::now() >= bound) {
      throw Error(fmt::format("{}: killing process group {} did not finish", where_, pgid));
    }
    pump_locked(ms_until(bound, 200));
    drain_locked(killer);
  }
}

CommandResult SshExecutorImpl::finish_locked(RemoteCommand& cmd, Clock::time_point deadline) {
  bool timed_out = false;
  auto give_up = Clock::time_point::max();
  while (true) {
    drain_locked(cmd);
    if (finished(cmd)) break;
    if (!alive_locked()) lost_locked(cmd, "running");
    if (!timed_out && Clock::now() >= deadline) {
      timed_out = true;
      kill_group_locked(cmd.pgid, options_.kill_grace);
      give_up = Clock::now() + std::chrono::seconds(5);
      continue;
    }
    if (Clock::now() >= give_up) break;  // killed, but something keeps the channel open
    pump_locked(ms_until(std::min(deadline, give_up), 1000));
  }
  return result_of(cmd, timed_out);
}

void SshExecutorImpl::lost_locked(RemoteCommand& cmd, const std::string& doing) {
  if (cmd.pgid > 1) lost_groups_.push_back(cmd.pgid);
  const std::string reason = session_ ? ssh_get_error(session_.get()) : "no session";
  release_locked(cmd);
  drop_session_locked();
  throw Error(
      fmt::format("{}: SSH connection lost while {} {} ({}); the next command reconnects{}", where_, doing,
                  cmd.what, reason.empty() ? "connection closed" : reason,
                  cmd.pgid > 1 ? fmt::format(" and kills its process group {}", cmd.pgid) : std::string()));
}

void SshExecutorImpl::release_locked(RemoteCommand& cmd) noexcept {
  if (!cmd.channel) return;
  // A channel of an earlier (freed) session must not be touched again.
  if (cmd.generation != generation_ || !session_) cmd.channel->release();
  cmd.channel.reset();
}

CommandResult SshExecutorImpl::run(const CommandSpec& spec) {
  check_command_spec(spec);
  std::lock_guard lock(mutex_);
  const auto deadline = deadline_of(Clock::now(), spec.deadline);
  RemoteCommand cmd = begin_locked(spec, false);
  CommandResult r = finish_locked(cmd, deadline);
  release_locked(cmd);
  open_ahead_locked();
  return r;
}

std::unique_ptr<Process> SshExecutorImpl::start(const CommandSpec& spec) {
  check_command_spec(spec);
  std::lock_guard lock(mutex_);
  const auto deadline = deadline_of(Clock::now(), spec.deadline);
  auto process = std::make_unique<SshProcess>(*this, begin_locked(spec, true), deadline);
  open_ahead_locked();
  return process;
}

void SshExecutorImpl::upload(const std::string& local_path, const std::string& remote_path, int mode) {
  std::ifstream in(local_path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot upload {}: cannot open it", where_, local_path));
  const std::string temp = remote_path + ".wb-upload";
  {
    std::lock_guard lock(mutex_);
    ensure_connected_locked();
    // SFTP takes the channel opened ahead if nothing runs on it yet: closing it and opening another could
    // meet MaxSessions first. A spare already running its waiting shell is closed (the shell exits at EOF)
    // and SFTP gets its own channel, whose open is retried while the server lets go.
    std::unique_ptr<ssh::Channel> channel = take_opened_locked();
    if (!channel && !spares_.empty()) spares_.pop_front();
    if (!channel) channel = open_channel_locked();
    ssh::Sftp sftp(session_.get(), std::move(channel));
    sftp_file file =
        sftp_open(sftp.get(), temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, static_cast<mode_t>(mode));
    if (file == nullptr) ssh::throw_error(session_.get(), fmt::format("{}: SFTP open {}", where_, temp));
    std::vector<char> buf(std::size_t{64} * 1024);
    bool ok = true;
    while (ok && in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      const auto n = static_cast<std::size_t>(in.gcount());
      ok = n == 0 || sftp_write(file, buf.data(), n) == static_cast<ssize_t>(n);
    }
    ok = sftp_close(file) == SSH_OK && ok;
    if (ok) ok = sftp_chmod(sftp.get(), temp.c_str(), static_cast<mode_t>(mode)) == SSH_OK;
    if (!ok)
      ssh::throw_error(session_.get(), fmt::format("{}: SFTP upload of {} to {}", where_, local_path, temp));
  }
  // rename(2) on the host replaces the old file atomically (SFTP v3 rename would refuse).
  const CommandResult mv = run({{"mv", "-f", temp, remote_path}, {}, {}, options_.connect_timeout});
  if (!mv.ok()) throw Error(fmt::format("{}: mv {} {} failed: {}", where_, temp, remote_path, mv.err));
}

}  // namespace ssh_detail

std::string describe_ssh_host(const SshOptions& options) { return ssh::describe(options); }

std::unique_ptr<SshExecutor> make_ssh_executor(const SshOptions& options) {
  if (options.host.empty()) throw InputError("ssh executor: no host given");
  return std::make_unique<ssh_detail::SshExecutorImpl>(options);
}

}  // namespace wb
