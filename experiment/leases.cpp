#include "experiment/leases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "harness/process_identity.hpp"

namespace wb {

double lease_clock() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Leases::Leases(const std::string& store_path, double timeout_s)
    : owner_(this_process()),
      timeout_s_(timeout_s),
      heartbeat_s_(std::clamp(timeout_s / 5, 0.05, 2.0)),
      store_path_(store_path) {
  store::Store probe(store_path_);  // fail here, not on the heartbeat thread
  thread_ = std::thread([this] { beat(); });
}

Leases::~Leases() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  try {
    store::Store store(store_path_);
    store.release_leases(owner_);
  } catch (...) {  // a lease left behind is taken over: its owner is dead by then
  }
}

void Leases::beat() {
  std::optional<store::Store> store;
  std::unique_lock lock(mu_);
  while (!stop_) {
    lock.unlock();
    std::vector<std::string> cancelled;
    try {
      if (!store) store.emplace(store_path_);
      cancelled = store->renew_leases(owner_, lease_clock());
    } catch (...) {  // a busy or vanished store: try again at the next beat
      store.reset();
    }
    lock.lock();
    for (auto& r : cancelled) cancelled_.insert(std::move(r));
    cv_.wait_for(lock, std::chrono::duration<double>(heartbeat_s_), [this] { return stop_; });
  }
}

bool Leases::dead(const store::Store::LeaseRow& lease) const {
  if (lease.owner.host == owner_.host) return !alive_here(lease.owner);
  return lease_clock() - lease.heartbeat_at > timeout_s_;
}

std::optional<store::Store::LeaseRow> Leases::acquire(store::Store& store,
                                                      const std::string& resource) const {
  return store.acquire_lease(resource, owner_, lease_clock(), judge());
}

void Leases::release(store::Store& store, const std::string& resource) const {
  store.release_lease(resource, owner_);
  std::lock_guard lock(mu_);
  cancelled_.erase(resource);
}

bool Leases::cancel_requested(const std::string& resource) const {
  std::lock_guard lock(mu_);
  return cancelled_.count(resource) > 0;
}

void Leases::sweep(store::Store& store, std::ostream& log) const {
  std::vector<std::int64_t> ids = store.mark_interrupted(judge());
  if (ids.empty()) return;
  std::string list;
  for (std::int64_t id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
  log << fmt::format("search{} {} marked interrupted: {} controller stopped without finishing\n",
                     ids.size() > 1 ? "es" : "", list, ids.size() > 1 ? "their" : "its");
}

std::string search_lease(std::int64_t search_id) { return fmt::format("search:{}", search_id); }
std::string point_lease(std::int64_t surface_id, int position) {
  return fmt::format("point:{}:{}", surface_id, position);
}
std::string probe_lease(std::int64_t probe_id) { return fmt::format("probe:{}", probe_id); }

std::string describe_holder(const std::string& what, const store::Store::LeaseRow& holder) {
  return fmt::format("{} is run by {} (heartbeat {:.1f} s ago)", what, holder.owner.describe(),
                     std::max(0.0, lease_clock() - holder.heartbeat_at));
}

}  // namespace wb
