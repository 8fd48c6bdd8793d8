#include <fmt/format.h>

#include "harness/ssh_executor_impl.hpp"

namespace wb::ssh_detail {

SshProcess::~SshProcess() {
  try {
    stop(ex_.options_.kill_grace);
  } catch (...) {
    // Never throw from a destructor; a lost connection's groups are killed on reconnect.
  }
  std::lock_guard lock(ex_.mutex_);
  ex_.live_.erase(this);
  ex_.release_locked(cmd_);
}

std::optional<std::string> SshProcess::read_line(milliseconds timeout) {
  std::lock_guard lock(ex_.mutex_);
  const auto until = std::min(Clock::now() + timeout, deadline_);
  while (true) {
    ex_.drain_locked(cmd_);
    const auto nl = cmd_.out.find('\n');
    if (nl != std::string::npos) {
      std::string line = cmd_.out.substr(0, nl);
      cmd_.out.erase(0, nl + 1);
      return line;
    }
    if (cmd_.eof) {
      if (cmd_.out.empty()) return std::nullopt;
      return std::exchange(cmd_.out, {});
    }
    if (Clock::now() >= until) break;
    pump_or_throw(ms_until(until, 1000));
  }
  const bool past_deadline = Clock::now() >= deadline_;
  if (past_deadline) stop_locked(ex_.options_.kill_grace, true);
  throw Error(fmt::format("{}: {} waiting for a line of output; stderr: {}", describe(),
                          past_deadline ? "deadline passed" : "timed out", tail(cmd_.err)));
}

std::optional<CommandResult> SshProcess::wait(milliseconds timeout) {
  std::lock_guard lock(ex_.mutex_);
  if (result_) return result_;
  const auto until = std::min(Clock::now() + timeout, deadline_);
  while (true) {
    ex_.drain_locked(cmd_);
    if (ex_.finished(cmd_)) {
      result_ = ex_.result_of(cmd_, false);
      ex_.live_.erase(this);
      return result_;
    }
    if (Clock::now() >= until) break;
    pump_or_throw(ms_until(until, 1000));
  }
  if (Clock::now() >= deadline_) return stop_locked(ex_.options_.kill_grace, true);
  return std::nullopt;
}

CommandResult SshProcess::stop(milliseconds grace) {
  std::lock_guard lock(ex_.mutex_);
  return stop_locked(grace, false);
}

std::string SshProcess::describe() const {
  return fmt::format("pgid {} on {}: {}", cmd_.pgid, ex_.where_, cmd_.what);
}

void SshProcess::connection_dropped() noexcept {
  if (dropped_) return;  // already queued once; a later drop must not queue the id again
  cmd_.channel->release();
  mark_lost();
}

void SshProcess::mark_lost() noexcept {
  lost_ = true;
  if (dropped_) return;
  dropped_ = true;
  if (!result_ && cmd_.pgid > 1) ex_.lost_groups_.push_back(cmd_.pgid);
}

void SshProcess::pump_or_throw(int timeout_ms) {
  if (lost_ || !ex_.alive_locked()) {
    mark_lost();
    throw Error(fmt::format("{}: connection lost", describe()));
  }
  ex_.pump_locked(timeout_ms);
}

CommandResult SshProcess::stop_locked(milliseconds grace, bool timed_out) {
  if (result_) return *result_;
  if (lost_ || !ex_.alive_locked()) {
    mark_lost();
    throw Error(fmt::format("{}: connection lost; its group is killed after reconnecting", describe()));
  }
  ex_.drain_locked(cmd_);
  if (!ex_.finished(cmd_)) ex_.kill_group_locked(cmd_.pgid, grace);
  const auto bound = Clock::now() + std::chrono::seconds(5);
  while (!ex_.finished(cmd_) && Clock::now() < bound && ex_.alive_locked()) {
    ex_.pump_locked(ms_until(bound, 200));
    ex_.drain_locked(cmd_);
  }
  result_ = ex_.result_of(cmd_, timed_out);
  ex_.live_.erase(this);
  return *result_;
}

}  // namespace wb::ssh_detail
