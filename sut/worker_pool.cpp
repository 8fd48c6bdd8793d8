#include "sut/worker_pool.hpp"

#include <cstdio>
#include <exception>

namespace wb::sut {

WorkerPool::WorkerPool(int threads, RequestService& service) : service_(service) {
  threads_.reserve(static_cast<std::size_t>(threads));
  try {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  } catch (...) {
    stop();
    throw;
  }
}

WorkerPool::~WorkerPool() noexcept { stop(); }

void WorkerPool::submit(Job job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void WorkerPool::stop() noexcept {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  std::deque<Job> dropped;
  {
    std::lock_guard lock(mu_);
    dropped.swap(queue_);
  }
}

int WorkerPool::queue_length() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(queue_.size());
}

void WorkerPool::work() {
  // When this thread finished its last request on the emulated timeline (request_service.hpp).
  RequestService::Clock::time_point free_at{};
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      free_at = service_.serve(job, free_at);
    } catch (const std::exception& e) {
      // Only allocation failures can get here; losing one reply beats losing the server.
      std::fprintf(stderr, "refserver: request %llu failed: %s\n",
                   static_cast<unsigned long long>(job.request.id), e.what());
    }
  }
}

}  // namespace wb::sut
