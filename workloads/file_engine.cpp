#include "workloads/file_engine.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "workloads/file_set.hpp"
#include "workloads/trace.hpp"

namespace wb {
namespace file_engine {  // its own names: unity builds merge the library's anonymous namespaces
namespace {

using Clock = std::chrono::steady_clock;
using Time = Clock::time_point;
using std::chrono::nanoseconds;

// The arrival thread sleeps only for gaps longer than this; shorter ones are queued at once
// (their latency still counts from the intended time), sparing a wake-up per operation.
constexpr auto kMinSleep = std::chrono::microseconds(50);

std::uint64_t to_ns(Clock::duration d) {
  auto n = std::chrono::duration_cast<nanoseconds>(d).count();
  return n > 0 ? static_cast<std::uint64_t>(n) : 0;
}

nanoseconds from_s(double s) { return nanoseconds(std::llround(s * 1e9)); }

struct Job {
  Time intended;
  Operation op;
  bool counted = false;
  int interval = -1;
};

// FIFO from the arrival thread to the I/O threads; pop() returns nothing once closed and empty.
class JobQueue {
 public:
  void push(const Job& j) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      q_.push_back(j);
    }
    cv_.notify_one();
  }
  std::optional<Job> pop() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return std::nullopt;
    Job j = q_.front();
    q_.pop_front();
    return j;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> q_;    // guarded by mu_
  bool closed_ = false;  // guarded by mu_
};

// What one I/O thread measured; the threads' parts merge like the network workers'.
struct Tally {
  LoadResult r;
  std::vector<TraceRecord> trace;
  std::uint64_t completions = 0;  // answered inside the window (achieved rate)
  std::vector<char> buf;          // this thread's read/write buffer
};

class FileRun {
 public:
  FileRun(const LoadOptions& o, const FileSet& files) : o_(o), files_(files) {
    // Leave the threads time to start before the first operation is due.
    start_ = Clock::now() + std::chrono::milliseconds(100);
    win_start_ = start_ + from_s(o.warmup_s);
    win_end_ = win_start_ + from_s(o.duration_s);
    timeout_ = from_s(o.timeout_s);
    late_ = nanoseconds(std::llround(o.late_ms * 1e6));
    if (o.interval_s > 0)
      intervals_ = std::max<std::size_t>(1, std::ceil(o.duration_s / o.interval_s - 1e-9));
  }

  std::vector<Tally> run() {
    std::vector<Tally> tallies(static_cast<std::size_t>(std::max(1, o_.connections)));
    std::vector<std::exception_ptr> failures(tallies.size() + 1);
    std::vector<std::thread> pool;
    for (std::size_t i = 0; i < tallies.size(); ++i) {
      tallies[i].r.intervals.resize(intervals_);
      for (std::size_t k = 0; k < intervals_; ++k)
        tallies[i].r.intervals[k].start_s = double(k) * o_.interval_s;
      pool.emplace_back([&, i] {
        try {
          serve(tallies[i]);
        } catch (...) {
          failures[i] = std::current_exception();
        }
      });
    }
    try {
      generate();
    } catch (...) {
      failures.back() = std::current_exception();
    }
    queue_.close();
    for (auto& t : pool) t.join();
    for (auto& f : failures)
      if (f) std::rethrow_exception(f);
    return tallies;
  }

 private:
  // The arrival thread: one operation per arrival, drawn here so the sequence follows the seed.
  void generate() {
    std::mt19937_64 rng(o_.seed * 0x9E3779B97F4A7C15ull);
    std::exponential_distribution<double> gap(o_.rate);
    bool poisson = o_.arrivals == Arrivals::kPoisson;
    Time next = poisson ? start_ + from_s(gap(rng)) : start_;
    for (std::uint64_t k = 1; next < win_end_; ++k) {
      if (next - Clock::now() > kMinSleep) std::this_thread::sleep_until(next);
      Job j;
      j.intended = next;
      j.op = o_.mix.next(rng);
      j.counted = next >= win_start_;
      if (j.counted && intervals_ > 0)
        j.interval = static_cast<int>(std::min<std::size_t>(intervals_ - 1, interval_of(next)));
      queue_.push(j);
      // constant arrivals: from the start each time, so rounding never accumulates
      next = poisson ? next + from_s(gap(rng)) : start_ + from_s(static_cast<double>(k) / o_.rate);
    }
  }

  std::size_t interval_of(Time t) const {
    return static_cast<std::size_t>(to_ns(t - win_start_) / static_cast<std::uint64_t>(o_.interval_s * 1e9));
  }

  void serve(Tally& t) {
    while (std::optional<Job> j = queue_.pop()) {
      Time now = Clock::now();
      LoadInterval* iv = j->interval >= 0 ? &t.r.intervals[static_cast<std::size_t>(j->interval)] : nullptr;
      if (now - j->intended > timeout_) {  // waited out its timeout in the queue: never started
        if (j->counted) count_timeout(t, iv);
        continue;
      }
      if (j->counted) {
        ++t.r.sent;
        if (now - j->intended > late_) ++t.r.late_sends;
        if (iv) ++iv->sent;
      }
      bool ok = execute(j->op, t.buf);
      record(t, *j, iv, Clock::now(), ok);
    }
  }

  // Blocking I/O on the operation's file; false when the system call fails or falls short.
  bool execute(const Operation& op, std::vector<char>& buf) const {
    if (op.kind == OpKind::kMetadata) {
      struct stat st {};
      return ::stat(files_.path(op.key).c_str(), &st) == 0;
    }
    if (buf.size() < op.size) buf.resize(op.size, 'w');
    int fd = files_.fd(op.key);
    for (std::size_t done = 0; done < op.size;) {
      auto at = static_cast<off_t>(op.offset + done);
      ssize_t n = op.kind == OpKind::kWrite ? ::pwrite(fd, buf.data() + done, op.size - done, at)
                                            : ::pread(fd, buf.data() + done, op.size - done, at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // an error, or the file is shorter than the mix says
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  void record(Tally& t, const Job& j, LoadInterval* iv, Time done, bool ok) {
    if (ok && done - j.intended > timeout_) {  // ran past its timeout: a timeout, as on the wire
      if (j.counted) count_timeout(t, iv);
      return;
    }
    if (!ok) {
      if (!j.counted) return;
      ++t.r.errors[to_string(ErrorKind::kIo)];
      if (iv) ++iv->errors;
      return;
    }
    if (done >= win_start_ && done < win_end_) {
      ++t.completions;
      if (intervals_ > 0) ++t.r.intervals[std::min(intervals_ - 1, interval_of(done))].completions;
    }
    if (!j.counted) return;
    std::uint64_t lat = to_ns(done - j.intended);
    t.r.histogram.record(lat);
    ++t.r.completed;
    if (iv) {
      ++iv->completed;
      iv->histogram.record(lat);
    }
    if (!o_.trace_path.empty())
      t.trace.push_back({j.op.kind, j.op.size, j.op.key, j.op.offset, to_ns(j.intended - win_start_), lat});
  }

  static void count_timeout(Tally& t, LoadInterval* iv) {
    ++t.r.timeouts;
    if (iv) ++iv->timeouts;
  }

  const LoadOptions& o_;
  const FileSet& files_;
  JobQueue queue_;
  Time start_, win_start_, win_end_;
  Clock::duration timeout_{}, late_{};
  std::size_t intervals_ = 0;
};

}  // namespace
}  // namespace file_engine

LoadResult run_file_load(const LoadOptions& o) {
  using file_engine::FileRun;
  using file_engine::Tally;
  std::optional<TraceWriter> trace;
  if (!o.trace_path.empty()) trace.emplace(o.trace_path);
  FileSet files(o.target.path, o.mix.keys.count, o.mix.keys.file_bytes);
  std::vector<Tally> tallies = FileRun(o, files).run();

  std::vector<LoadResult> parts;
  std::vector<std::vector<TraceRecord>> traces;
  parts.reserve(tallies.size());
  traces.reserve(tallies.size());
  for (auto& t : tallies) {
    t.r.offered_rate = o.rate / static_cast<double>(tallies.size());
    t.r.duration_s = o.duration_s;
    t.r.achieved_rate = static_cast<double>(t.completions) / o.duration_s;
    parts.push_back(std::move(t.r));
    traces.push_back(std::move(t.trace));
  }
  LoadResult r = merge_results(parts);
  r.generators = 1;
  r.offered_rate = o.rate;
  if (trace) {
    r.trace_ops = trace->write(std::move(traces));
    r.trace_path = trace->path();
  }
  return r;
}

}  // namespace wb
