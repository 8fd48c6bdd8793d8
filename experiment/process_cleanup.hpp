#pragma once
// The store's side of "nothing outlives its controller" (DESIGN.md "Security and failure"):
// every process group a run starts on a real testbed is recorded in the store while it runs,
// and every run that starts trials first kills what a dead controller left on that testbed.
#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "harness/process_identity.hpp"
#include "harness/process_registry.hpp"
#include "harness/testbed_config.hpp"
#include "store/store.hpp"

namespace wb {

// The ProcessRegistry of one trial runner: one row per started group in the store at `path`,
// owned by this process. It opens its own connection, so a runner on a worker thread
// (map-surface --parallel) writes from that thread only. Not thread-safe.
class StoreProcessRegistry final : public ProcessRegistry {
 public:
  StoreProcessRegistry(const std::string& store_path, std::string testbed);
  std::int64_t record(const StartedGroup& started) override;
  void forget(std::int64_t id) noexcept override;

 private:
  store::Store store_;
  const std::string testbed_;
};

// What a recorded group's owner is, seen from this controller.
enum class OwnerState {
  kAlive,        // leave the group alone
  kDead,         // kill what is left of the group
  kUnreachable,  // the group ran on another machine's "local": not ours to reach
};

struct CleanupOptions {
  // An owner on another machine counts as alive until its row is this old: only its own machine
  // can tell whether that pid still runs (leases with heartbeats will say it sooner).
  std::chrono::seconds foreign_owner_timeout{24 * 3600};
  std::chrono::milliseconds kill_grace{2000};  // SIGTERM -> SIGKILL
};

// The decision for one row: an owner on this machine is dead when its pid no longer runs with
// its start time (`alive_here`); one on another machine is alive until the row is older than
// the timeout. Pure given `alive_here` and `now` (unix seconds).
OwnerState judge_owner(const store::Store::ProcessRow& row, const std::string& this_host, std::int64_t now,
                       const CleanupOptions& options, const std::function<bool(const OwnerId&)>& alive_here);

// CleanupOptions from the environment: $WB_FOREIGN_OWNER_TIMEOUT_S (seconds) when set.
CleanupOptions cleanup_options_from_env();

// Kills, on its host, every recorded group of `testbed` whose owner is dead and whose leader still runs
// with its recorded start time, and deletes dead owners' rows (a row stays if its host is unreachable).
// One line on `log` per group killed or unreached. Throws Error only for store failures; returns the kills.
int kill_orphaned_processes(store::Store& store, const std::string& testbed, const TestbedConfig& hosts,
                            std::ostream& log, const CleanupOptions& options = cleanup_options_from_env());

}  // namespace wb
