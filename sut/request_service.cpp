#include "sut/request_service.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>

namespace wb::sut {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

Clock::duration from_ms(double ms) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

bool touches_disk(rpc::Op op) { return op == rpc::Op::kRead || op == rpc::Op::kWrite; }

}  // namespace

RequestService::RequestService(const ServerOptions& options, std::uint64_t seed, StageStats& stats,
                               DiskPool& disks, BlockCache* cache, StopFlag& stop)
    : options_(options), seed_(seed), stats_(stats), disks_(disks), cache_(cache), stop_(stop) {}

Clock::time_point RequestService::after_stall(Clock::time_point v) const {
  if (options_.stall_every_s <= 0) return v;
  const double at = seconds(v - start_);
  const double k = std::floor(at / options_.stall_every_s);
  if (k < 1) return v;
  const double window_end = k * options_.stall_every_s + options_.stall_for_s;
  return at < window_end ? start_ + from_ms(window_end * 1e3) : v;
}

Clock::time_point RequestService::spend_cpu(Clock::time_point v, double ms) {
  if (ms <= 0) return v;
  if (options_.cpu_mode == CpuMode::kSleep) {
    const Clock::time_point end = v + from_ms(ms);
    stop_.sleep_until(end);
    return end;
  }
  // Real CPU work cannot be done ahead of time: it starts now, whatever v says.
  const std::int64_t target = thread_cpu_ns() + static_cast<std::int64_t>(ms * 1e6);
  while (thread_cpu_ns() < target && !stop_.stopped()) {
  }
  return std::max(v, Clock::now());
}

Clock::time_point RequestService::serve(Job& job, Clock::time_point thread_free_at) {
  const rpc::Request& req = job.request;
  RequestTimes t;
  const Clock::time_point v0 = after_stall(std::max(job.arrival, thread_free_at));
  if (v0 > Clock::now() && !stop_.sleep_until(v0)) return Clock::now();
  t.s[kThreadQueue] = seconds(v0 - job.arrival);

  const int busy = ++busy_;
  struct BusyGuard {
    std::atomic<int>& n;
    ~BusyGuard() { --n; }
  } busy_guard{busy_};
  std::unique_lock big_lock(serialize_mu_, std::defer_lock);
  Clock::time_point v = v0;
  if (options_.serialize_above > 0 && busy > options_.serialize_above) {
    big_lock.lock();
    v = std::max(v, lock_free_at_);
    t.s[kLock] = seconds(v - v0);
  }

  SplitMix64 rng(seed_, job.seq);
  double cpu_ms = draw_ms(options_.cpu, rng);
  if (req.op == rpc::Op::kWrite) {
    const std::uint64_t before = files_++;
    cpu_ms += options_.create_cost_ms * static_cast<double>(before) / 1000.0;
  }
  const Clock::time_point cpu_start = v;
  v = spend_cpu(v, cpu_ms);
  t.s[kCpu] = seconds(v - cpu_start);

  bool cached = false;
  if (cache_ != nullptr && touches_disk(req.op)) {
    const bool hit = cache_->access(req.file, req.offset, req.size, req.op == rpc::Op::kWrite);
    cached = hit && req.op == rpc::Op::kRead;
  }
  if (touches_disk(req.op) && !cached) {
    const std::optional<DiskPool::Grant> disk = disks_.acquire();
    if (!disk) return Clock::now();  // stopped
    const Clock::time_point disk_start = std::max(v, disk->free_at);
    t.s[kDiskQueue] = seconds(disk_start - v);
    ServiceTime st = options_.disk;
    if (req.flags & rpc::kFlagSequential) st.mean_ms *= options_.seq_factor;
    const double disk_ms = draw_ms(st, rng) * options_.disk_factor(disk->index);
    v = disk_start + from_ms(disk_ms);
    stop_.sleep_until(v);
    t.s[kDisk] = seconds(v - disk_start);
    disks_.release(disk->index, v);
    stats_.record_disk(disk->index, t.s[kDisk]);
  }
  if (big_lock.owns_lock()) {
    lock_free_at_ = v;
    big_lock.unlock();
  }
  if (stop_.stopped()) return Clock::now();
  const Clock::time_point now = Clock::now();
  t.s[kLag] = seconds(std::max(Clock::duration::zero(), now - v));
  t.s[kResidence] = seconds(now - job.arrival);
  stats_.record(req.op, t);
  job.done(req, rpc::Status::kOk);
  return v;
}

}  // namespace wb::sut
