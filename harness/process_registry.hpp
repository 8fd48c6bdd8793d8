#pragma once
// The record of what a controller started, so the next controller on a testbed can kill what a dead
// one left where the guards could not (docs/decisions.md#process-guard). The harness only reports
// groups; the controller keeps the record (in the store) and decides which owners are dead.
// Threads: a registry is used by the thread of the executor it wraps.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "harness/executor.hpp"

namespace wb {

// One started process group, as recorded.
struct StartedGroup {
  std::string host;  // Executor::describe() of where it runs: "local" or "user@host:port"
  ProcessGroup group;
  std::string command;  // the quoted argv, for messages
};

class ProcessRegistry {
 public:
  virtual ~ProcessRegistry() = default;
  ProcessRegistry() = default;
  ProcessRegistry(const ProcessRegistry&) = delete;
  ProcessRegistry& operator=(const ProcessRegistry&) = delete;

  // Records a group that has just started; returns the id forget() takes. Throws Error if it
  // cannot be recorded (the caller then stops the group).
  virtual std::int64_t record(const StartedGroup& started) = 0;
  // The group was stopped (or has ended): drops its record. Never throws; a record it fails to
  // drop is found by the next controller, which sees the group gone and drops it then.
  virtual void forget(std::int64_t id) noexcept = 0;
};

// An executor that records every process `inner` starts in `registry` (not owned; it must
// outlive the executor) and forgets it once the Process is destroyed (which stops its group).
// run() is not recorded: its commands end with their call (at their deadline at the latest).
std::unique_ptr<Executor> make_recording_executor(std::unique_ptr<Executor> inner, ProcessRegistry& registry);

// What kill_recorded_group found.
enum class RecordedGroupFate {
  kKilled,  // its leader ran with the recorded start time: the group got SIGTERM (SIGKILL later)
  kGone,    // no process has the group's id any more
  kReused,  // a process has the id but started at another time: it is not ours, left alone
};

// On `host`: ends group `pgid` (SIGTERM, SIGKILL after `grace`) if its leader exists and started at
// `start_ticks` (/proc/PGID/stat field 22), so a reused id is never killed; an exited leader or a
// start time of 0 counts as gone. Runs a POSIX sh script through host.run(), locally or over SSH.
// Throws Error if the script cannot run.
RecordedGroupFate kill_recorded_group(Executor& host, long pgid, std::uint64_t start_ticks,
                                      std::chrono::milliseconds grace);

}  // namespace wb
