#include "experiment/process_cleanup.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>

#include "core/error.hpp"
#include "harness/real_trial_runner.hpp"

namespace wb {

StoreProcessRegistry::StoreProcessRegistry(const std::string& store_path, std::string testbed)
    : store_(store_path), testbed_(std::move(testbed)) {}

std::int64_t StoreProcessRegistry::record(const StartedGroup& started) {
  store::Store::ProcessRow row;
  row.testbed = testbed_;
  row.host = started.host;
  row.pgid = started.group.pgid;
  row.start_ticks = started.group.start_ticks;
  row.command = started.command;
  row.owner = this_process();
  return store_.add_process(row);
}

void StoreProcessRegistry::forget(std::int64_t id) noexcept {
  try {
    store_.remove_process(id);
  } catch (...) {
    // The row stays; the next run finds its owner dead and its group gone, and drops it.
  }
}

OwnerState judge_owner(const store::Store::ProcessRow& row, const std::string& this_host, std::int64_t now,
                       const CleanupOptions& options, const std::function<bool(const OwnerId&)>& alive_here) {
  if (row.owner.host == this_host) return alive_here(row.owner) ? OwnerState::kAlive : OwnerState::kDead;
  // "local" of another machine is that machine: nothing here can reach it.
  if (row.host == "local") return OwnerState::kUnreachable;
  return now - row.started_at < options.foreign_owner_timeout.count() ? OwnerState::kAlive
                                                                      : OwnerState::kDead;
}

CleanupOptions cleanup_options_from_env() {
  CleanupOptions o;
  if (const char* s = std::getenv("WB_FOREIGN_OWNER_TIMEOUT_S"); s != nullptr && *s != '\0') {
    char* end = nullptr;
    const long long v = std::strtoll(s, &end, 10);
    if (end == nullptr || *end != '\0' || v < 0)
      throw InputError(fmt::format("WB_FOREIGN_OWNER_TIMEOUT_S={}: must be a whole number of seconds", s));
    o.foreign_owner_timeout = std::chrono::seconds(v);
  }
  return o;
}

namespace {

std::string shortened(const std::string& command) {
  constexpr std::size_t kMax = 100;
  return command.size() <= kMax ? command : command.substr(0, kMax) + "...";
}

}  // namespace

int kill_orphaned_processes(store::Store& store, const std::string& testbed, const TestbedConfig& hosts,
                            std::ostream& log, const CleanupOptions& options) {
  const std::string here = this_host_name();
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  std::map<std::string, std::unique_ptr<Executor>> executors;  // by host description
  int killed = 0;
  for (const store::Store::ProcessRow& row : store.processes(testbed)) {
    if (judge_owner(row, here, now, options, alive_here) != OwnerState::kDead) continue;
    const std::string what = fmt::format("pgid {} on {} ({}), left by dead controller {}", row.pgid, row.host,
                                         shortened(row.command), row.owner.describe());
    try {
      auto it = executors.find(row.host);
      if (it == executors.end()) {
        const HostConfig* config = nullptr;
        for (const HostConfig& h : hosts.hosts) {
          if (host_description(h) == row.host) config = &h;
        }
        if (config == nullptr) {
          log << fmt::format("workbench: cannot check {}: {} is no host of testbed {} any more\n", what,
                             row.host, testbed);
          continue;
        }
        it = executors.emplace(row.host, connect_host(*config)).first;
      }
      const RecordedGroupFate fate =
          kill_recorded_group(*it->second, row.pgid, row.start_ticks, options.kill_grace);
      if (fate == RecordedGroupFate::kKilled) {
        log << fmt::format("workbench: killed {}\n", what);
        ++killed;
      }
    } catch (const Error& e) {
      log << fmt::format("workbench: cannot check {}: {}\n", what, e.what());
      continue;  // the row stays for the next run
    }
    store.remove_process(row.id);
  }
  return killed;
}

}  // namespace wb
