#pragma once
// StopFlag: the one "refserver is shutting down" signal, with sleeps it interrupts, so a worker in a
// long stall or disk service still lets SIGTERM finish promptly. Threads: every member is safe from
// any thread; stop() is idempotent and wakes every sleeper.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace wb::sut {

class StopFlag {
 public:
  using Clock = std::chrono::steady_clock;

  void stop() noexcept {
    {
      std::lock_guard lock(mu_);
      stopped_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
  }

  bool stopped() const noexcept { return stopped_.load(std::memory_order_acquire); }

  // Sleeps until `deadline` or stop(). Returns false if stopped.
  bool sleep_until(Clock::time_point deadline) {
    std::unique_lock lock(mu_);
    return !cv_.wait_until(lock, deadline, [this] { return stopped(); });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stopped_{false};
};

}  // namespace wb::sut
