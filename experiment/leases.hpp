#pragma once
// This controller's leases in the store (one owner per search, surface point and probe) and their
// heartbeat (DESIGN.md "Security and failure"). A holder is dead when on this host its pid (and start
// time) is gone, or elsewhere when its heartbeat is older than [testbed] lease_timeout_s.
// Threads: the heartbeat has its own thread and store connection; other members are thread-safe.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "core/owner.hpp"
#include "store/store.hpp"

namespace wb {

// A search a controller still owns or may resume: running, or interrupted by its controller's end.
inline bool unfinished(store::SearchState state) {
  return state == store::SearchState::kRunning || state == store::SearchState::kInterrupted;
}

// [testbed] lease_timeout_s when a config does not say.
constexpr double kDefaultLeaseTimeoutS = 15;

// Unix seconds now (the clock leases are written with).
double lease_clock();

class Leases {
 public:
  // Starts the heartbeat (every timeout/5 s, at most 2 s). Throws Error if the store cannot open.
  Leases(const std::string& store_path, double timeout_s);
  // Stops the heartbeat and releases every lease this process holds in the store.
  ~Leases();
  Leases(const Leases&) = delete;
  Leases& operator=(const Leases&) = delete;

  const OwnerId& owner() const { return owner_; }
  double timeout_s() const { return timeout_s_; }
  double heartbeat_s() const { return heartbeat_s_; }

  // The takeover rule above.
  bool dead(const store::Store::LeaseRow& lease) const;
  store::Store::HolderDead judge() const {
    return [this](const store::Store::LeaseRow& l) { return dead(l); };
  }

  // Takes `resource` through `store` (the caller's connection): nullopt when taken, else the live
  // holder.
  std::optional<store::Store::LeaseRow> acquire(store::Store& store, const std::string& resource) const;
  void release(store::Store& store, const std::string& resource) const;

  // Whether someone asked this controller to stop `resource` (seen at the last heartbeat).
  bool cancel_requested(const std::string& resource) const;

  // Marks the running searches whose controller died as "interrupted" (so nothing shows as
  // running that is not), and says so on `log` when it finds any.
  void sweep(store::Store& store, std::ostream& log) const;

 private:
  void beat();

  OwnerId owner_;
  double timeout_s_;
  double heartbeat_s_;
  std::string store_path_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;                        // guarded by mu_
  mutable std::set<std::string> cancelled_;  // guarded by mu_
  std::thread thread_;
};

// "search:12", "point:3:5", "probe:7".
std::string search_lease(std::int64_t search_id);
std::string point_lease(std::int64_t surface_id, int position);
std::string probe_lease(std::int64_t probe_id);

// "search 12 is run by host:pid (heartbeat 0.4 s ago)".
std::string describe_holder(const std::string& what, const store::Store::LeaseRow& holder);

}  // namespace wb
