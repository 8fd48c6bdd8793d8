#pragma once
// WorkerPool: the thread queue and the N worker threads of refserver.
//
// submit() appends a Job to one shared FIFO queue; each of the N workers takes the oldest job and
// runs RequestService::serve on it, so at most N requests are in service at once and the rest
// wait in arrival order (an FCFS N-server station). The queue is unbounded.
//
// Threads: submit() and queue_length() are safe from any thread. stop() (idempotent, also run
// by the destructor) wakes and joins every worker and drops queued jobs without calling their
// `done`; the caller must have set the StopFlag and stopped the DiskPool first so that workers in
// service return promptly.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "sut/request_service.hpp"

namespace wb::sut {

class WorkerPool {
 public:
  // Starts `threads` workers at once. `service` must outlive the pool.
  WorkerPool(int threads, RequestService& service);
  ~WorkerPool() noexcept;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(Job job);
  void stop() noexcept;
  int queue_length() const;

 private:
  void work();

  RequestService& service_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;  // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace wb::sut
