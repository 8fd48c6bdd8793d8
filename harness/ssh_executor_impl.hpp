#pragma once
// Internal to the SSH executor (harness/ssh_executor.cpp: connection, commands, the spare;
// harness/ssh_process.cpp: started processes). Use make_ssh_executor (ssh_executor.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/ssh_connection.hpp"
#include "harness/ssh_executor.hpp"

namespace wb::ssh_detail {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

inline Clock::time_point deadline_of(Clock::time_point start, milliseconds d) {
  return d.count() > 0 ? start + d : Clock::time_point::max();
}

inline int ms_until(Clock::time_point t, int cap_ms) {
  if (t == Clock::time_point::max()) return cap_ms;
  const auto left = std::chrono::duration_cast<milliseconds>(t - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left + 1, 0, cap_ms));
}

inline std::string tail(const std::string& s, std::size_t n = 2000) {
  return s.size() <= n ? s : s.substr(s.size() - n);
}

// One command on one channel: its output so far and the process group id it reported.
struct RemoteCommand {
  std::unique_ptr<ssh::Channel> channel;
  std::uint64_t generation = 0;  // the connection the channel belongs to
  std::string what;              // the quoted argv, for messages
  long pgid = -1;
  std::uint64_t start_ticks = 0;  // of the group's leader, when the command line reports it
  std::string out, err;
  bool eof = false;
};

class SshProcess;

// [Guarded] Everything below marked GUARDED_BY(mutex_) is touched only with mutex_ held.
class SshExecutorImpl final : public SshExecutor {
 public:
  explicit SshExecutorImpl(const SshOptions& options) : options_(options), where_(ssh::describe(options)) {
    std::lock_guard lock(mutex_);
    connect_locked();
  }

  ~SshExecutorImpl() override {
    std::lock_guard lock(mutex_);
    drop_session_locked();
  }

  CommandResult run(const CommandSpec& spec) override;
  std::unique_ptr<Process> start(const CommandSpec& spec) override;
  void upload(const std::string& local_path, const std::string& remote_path, int mode) override;
  std::string describe() const override { return where_; }
  std::uint64_t connections() const override { return connections_.load(); }

 private:
  friend class SshProcess;

  // Connection management.
  void connect_locked();
  void ensure_connected_locked();
  void drop_session_locked() noexcept;
  bool alive_locked() const { return session_ && ssh_is_connected(session_.get()) != 0; }
  void kill_lost_groups_locked() noexcept;

  // Commands.
  // `guarded`: a started command (remote_start_line), else one that runs to completion.
  RemoteCommand begin_locked(const CommandSpec& spec, bool guarded);
  // A channel running command_line: through the spare's waiting shell when `use_waiting` and
  // one is ready (then *waited is set), else by exec on the spare or on a new channel.
  std::unique_ptr<ssh::Channel> exec_locked(const std::string& command_line, bool use_waiting = true,
                                            bool* waited = nullptr);
  std::unique_ptr<ssh::Channel> take_waiting_locked(const std::string& command_line);
  std::unique_ptr<ssh::Channel> take_opened_locked();
  std::unique_ptr<ssh::Channel> open_channel_locked();
  void open_ahead_locked() noexcept;
  void advance_spare_locked() noexcept;
  // One poll of the connection (handling what arrived), then the spares moved on and started
  // processes drained; true when the poll handled something.
  bool pump_locked(int timeout_ms);
  void drain_locked(RemoteCommand& cmd);
  bool finished(const RemoteCommand& cmd) const;
  // Runs to completion (or to its deadline, then kills the group); throws on connection loss.
  CommandResult finish_locked(RemoteCommand& cmd, Clock::time_point deadline);
  void kill_group_locked(long pgid, milliseconds grace);
  [[noreturn]] void lost_locked(RemoteCommand& cmd, const std::string& doing);
  void release_locked(RemoteCommand& cmd) noexcept;
  CommandResult result_of(RemoteCommand& cmd, bool timed_out) const;

  const SshOptions options_;
  const std::string where_;
  mutable std::mutex mutex_;
  ssh::Session session_;       // GUARDED_BY(mutex_)
  ssh_event event_ = nullptr;  // GUARDED_BY(mutex_): polls session_ only
  // A channel opened ahead on session_, and how far it got: its open sent, the waiting shell's
  // exec sent, the waiting shell running (accepted by the server).
  struct Spare {
    enum class State { kOpening, kStarting, kWaiting };
    std::unique_ptr<ssh::Channel> channel;
    State state = State::kOpening;
  };
  std::deque<Spare> spares_;                       // GUARDED_BY(mutex_): oldest (most advanced) first
  std::uint64_t generation_ = 0;                   // GUARDED_BY(mutex_): +1 per connection
  std::atomic<std::uint64_t> connections_{0};      // written with mutex_ held, read without
  std::set<SshProcess*> live_;                     // GUARDED_BY(mutex_): started, not yet finished
  std::vector<long> lost_groups_;                  // GUARDED_BY(mutex_): to kill after reconnecting
  Clock::time_point last_traffic_ = Clock::now();  // GUARDED_BY(mutex_)
};

// A command started with SshExecutor::start: its output is read line by line; stop() (or the
// destructor) kills its process group from a second channel.
class SshProcess final : public Process {
 public:
  SshProcess(SshExecutorImpl& ex, RemoteCommand cmd, Clock::time_point deadline)
      : ex_(ex), cmd_(std::move(cmd)), deadline_(deadline) {
    ex_.live_.insert(this);  // caller holds the mutex
  }

  ~SshProcess() override;

  std::optional<std::string> read_line(milliseconds timeout) override;

  std::optional<CommandResult> wait(milliseconds timeout) override;

  CommandResult stop(milliseconds grace) override;

  std::string describe() const override;
  ProcessGroup group() const override { return {cmd_.pgid, cmd_.start_ticks}; }

  void drain() { ex_.drain_locked(cmd_); }
  // The connection this process ran on was dropped (the caller holds the mutex). Its group
  // may still run on the host; the executor kills it once it has reconnected.
  void connection_dropped() noexcept;

 private:
  // The connection died under this process: its group may still run on the host, so queue it
  // for killing after the reconnect — also when this Process is destroyed before the executor
  // drops the dead session (regression: a SUT left holding its port after a dropped connection).
  void mark_lost() noexcept;

  void pump_or_throw(int timeout_ms);

  CommandResult stop_locked(milliseconds grace, bool timed_out);

  SshExecutorImpl& ex_;
  RemoteCommand cmd_;
  const Clock::time_point deadline_;
  std::optional<CommandResult> result_;
  bool lost_ = false;     // its connection is dead (noticed by us or by the executor)
  bool dropped_ = false;  // the executor dropped its session (and queued its group)
};

}  // namespace wb::ssh_detail
