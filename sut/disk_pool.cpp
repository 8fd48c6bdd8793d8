#include "sut/disk_pool.hpp"

#include <algorithm>

namespace wb::sut {

DiskPool::DiskPool(int disks) : disks_(disks), free_at_(static_cast<std::size_t>(disks), Clock::now()) {
  for (int i = 0; i < disks; ++i) free_.push_back(i);
}

std::optional<DiskPool::Grant> DiskPool::acquire() {
  std::unique_lock lock(mu_);
  if (stopped_) return std::nullopt;
  if (waiters_.empty() && !free_.empty()) {
    const int d = free_.front();
    free_.pop_front();
    return Grant{d, free_at_[static_cast<std::size_t>(d)]};
  }
  Waiter me;
  waiters_.push_back(&me);
  me.cv.wait(lock, [&] { return me.disk >= 0 || stopped_; });
  if (me.disk >= 0) return Grant{me.disk, free_at_[static_cast<std::size_t>(me.disk)]};
  // Stopped before a disk came: leave the queue (stop() does not clear it, so we must).
  waiters_.erase(std::remove(waiters_.begin(), waiters_.end(), &me), waiters_.end());
  return std::nullopt;
}

void DiskPool::release(int index, Clock::time_point end) {
  std::lock_guard lock(mu_);
  free_at_.at(static_cast<std::size_t>(index)) = end;
  if (!waiters_.empty() && !stopped_) {
    Waiter* w = waiters_.front();
    waiters_.pop_front();
    w->disk = index;
    // Notify under the lock: once the waiter sees disk >= 0 it returns and `w` dies.
    w->cv.notify_one();
    return;
  }
  free_.push_back(index);
}

void DiskPool::stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
  for (Waiter* w : waiters_) w->cv.notify_one();
}

int DiskPool::queue_length() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(waiters_.size());
}

}  // namespace wb::sut
