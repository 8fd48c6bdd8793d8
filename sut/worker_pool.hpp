#pragma once
// WorkerPool: refserver's thread queue and N workers, an FCFS N-server station: submit() appends a Job
// to one unbounded FIFO, and each worker serves the oldest with RequestService::serve.
// Threads: submit() and queue_length() are safe from any thread. stop() (idempotent, also in the
// destructor) joins the workers and drops queued jobs without calling `done`; set the StopFlag and stop
// the DiskPool first so that workers in service return promptly.
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
