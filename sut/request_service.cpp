#include "sut/request_service.hpp"

#include <time.h>

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
                               DiskPool& disks, StopFlag& stop)
    : options_(options), seed_(seed), stats_(stats), disks_(disks), stop_(stop) {}

void RequestService::wait_out_stall() {
  if (options_.stall_every_s <= 0) return;
  const double elapsed = seconds(Clock::now() - start_);
  const double k = std::floor(elapsed / options_.stall_every_s);
  if (k < 1) return;
  const double window_end = k * options_.stall_every_s + options_.stall_for_s;
  if (elapsed < window_end) stop_.sleep_until(start_ + from_ms(window_end * 1e3));
}

void RequestService::spend_cpu(double ms) {
  if (ms <= 0) return;
  if (options_.cpu_mode == CpuMode::kSleep) {
    stop_.sleep_until(Clock::now() + from_ms(ms));
    return;
  }
  const std::int64_t target = thread_cpu_ns() + static_cast<std::int64_t>(ms * 1e6);
  while (thread_cpu_ns() < target && !stop_.stopped()) {
  }
}

void RequestService::serve(Job& job) {
  const rpc::Request& req = job.request;
  wait_out_stall();
  RequestTimes t;
  const Clock::time_point started = Clock::now();
  t.s[kThreadQueue] = seconds(started - job.arrival);

  const int busy = ++busy_;
  struct BusyGuard {
    std::atomic<int>& n;
    ~BusyGuard() { --n; }
  } busy_guard{busy_};
  std::unique_lock big_lock(serialize_mu_, std::defer_lock);
  Clock::time_point locked = started;
  if (options_.serialize_above > 0 && busy > options_.serialize_above) {
    big_lock.lock();
    locked = Clock::now();
    t.s[kLock] = seconds(locked - started);
  }

  SplitMix64 rng(seed_, job.seq);
  double cpu_ms = draw_ms(options_.cpu, rng);
  if (req.op == rpc::Op::kWrite) {
    const std::uint64_t before = files_++;
    cpu_ms += options_.create_cost_ms * static_cast<double>(before) / 1000.0;
  }
  spend_cpu(cpu_ms);
  Clock::time_point end = Clock::now();
  t.s[kCpu] = seconds(end - locked);

  if (touches_disk(req.op)) {
    const std::optional<int> disk = disks_.acquire();
    if (!disk) return;  // stopped
    const Clock::time_point got = Clock::now();
    t.s[kDiskQueue] = seconds(got - end);
    ServiceTime st = options_.disk;
    if (req.flags & rpc::kFlagSequential) st.mean_ms *= options_.seq_factor;
    const double disk_ms = draw_ms(st, rng) * options_.disk_factor(*disk);
    stop_.sleep_until(got + from_ms(disk_ms));
    end = Clock::now();
    t.s[kDisk] = seconds(end - got);
    disks_.release(*disk);
    stats_.record_disk(*disk, t.s[kDisk]);
  }
  if (big_lock.owns_lock()) big_lock.unlock();
  if (stop_.stopped()) return;
  t.s[kResidence] = seconds(end - job.arrival);
  stats_.record(req.op, t);
  job.done(req, rpc::Status::kOk);
}

}  // namespace wb::sut
