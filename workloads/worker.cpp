#include "workloads/worker.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <random>
#include <vector>

#include "workloads/poller.hpp"
#include "workloads/worker_impl.hpp"

namespace wb {
using namespace worker_detail;  // Request, Conn, the clock (worker_impl.hpp)

namespace {

constexpr auto kMinTick = std::chrono::microseconds(20);
constexpr std::size_t kReadyBatch = 256;  // sockets taken from the poller per epoll_wait
// Busy-polling: see Worker::Impl::loop().
constexpr auto kSpin = std::chrono::microseconds(50);
constexpr auto kSpinWhenGapBelow = std::chrono::microseconds(25);

std::uint64_t to_ns(Clock::duration d) {
  auto n = std::chrono::duration_cast<nanoseconds>(d).count();
  return n > 0 ? static_cast<std::uint64_t>(n) : 0;
}

}  // namespace

Worker::Impl::Impl(const LoadOptions& o, const Codec& codec, const tcp::endpoint& ep, const WorkerPlan& plan)
    : o_(o),
      codec_(codec),
      ep_(ep),
      plan_(plan),
      io_(BOOST_ASIO_CONCURRENCY_HINT_UNSAFE),
      timer_(io_),
      sweep_(io_),
      poller_(io_),
      rng_(o.seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(plan.index)) {
  start_ = plan.start;
  win_start_ = start_ + nanoseconds(std::llround(o.warmup_s * 1e9));
  win_end_ = win_start_ + nanoseconds(std::llround(o.duration_s * 1e9));
  timeout_ = nanoseconds(std::llround(o.timeout_s * 1e9));
  late_ = nanoseconds(std::llround(o.late_ms * 1e6));
  if (o.interval_s > 0) {
    auto n = static_cast<std::size_t>(std::ceil(o.duration_s / o.interval_s - 1e-9));
    intervals_.resize(std::max<std::size_t>(n, 1));
    for (std::size_t i = 0; i < intervals_.size(); ++i)
      intervals_[i].start_s = static_cast<double>(i) * o.interval_s;
  }
  period_s_ = 1.0 / plan.rate;
  next_ = start_ + nanoseconds(std::llround(plan.phase_s * 1e9));
  if (o_.arrivals == Arrivals::kPoisson) next_ = start_ + nanoseconds(std::llround(exp_gap() * 1e9));
  generating_ = next_ < win_end_;
}

Worker::Impl::~Impl() noexcept { close_all(); }

void Worker::Impl::run() {
  for (int i = 0; i < plan_.connections; ++i) open();
  arm_tick(std::min(next_, win_end_));  // no request at all in the window: finish at its end
  arm_sweep();
  arm_poller();
  loop();
}

LoadResult Worker::Impl::result() const {
  LoadResult r;
  r.offered_rate = plan_.rate;
  r.duration_s = o_.duration_s;
  r.achieved_rate = static_cast<double>(completions_) / o_.duration_s;
  r.sent = sent_;
  r.completed = completed_;
  for (std::size_t k = 0; k < errors_.size(); ++k)
    if (errors_[k]) r.errors[to_string(static_cast<ErrorKind>(k))] = errors_[k];
  r.timeouts = timeouts_;
  r.late_sends = late_sends_;
  r.histogram = histogram_;
  r.intervals = intervals_;
  return r;
}

// The event loop: io_context::run, but while events come less than kSpinWhenGapBelow apart it polls
// for up to kSpin before it sleeps, sparing a fast server the wake-up (and, on a small machine, its
// core); it never spins at low rates (docs/decisions.md#worker-spin).
void Worker::Impl::loop() {
  using std::chrono::duration_cast;
  auto gap = std::chrono::duration_cast<nanoseconds>(kSpin) * 4;  // EWMA, starts in "sleep"
  Time last = Clock::now();
  auto worked = [&](Time now) {
    gap += (duration_cast<nanoseconds>(now - last) - gap) / 8;
    last = now;
  };
  while (!io_.stopped()) {
    if (io_.poll() > 0) {
      worked(Clock::now());
      continue;
    }
    if (gap < kSpinWhenGapBelow && Clock::now() - last < kSpin) continue;
    if (io_.run_one() == 0) break;
    worked(Clock::now());
  }
}

// ---- arrivals -------------------------------------------------------------------------
double Worker::Impl::exp_gap() { return std::exponential_distribution<double>(plan_.rate)(rng_); }

void Worker::Impl::advance() {
  if (o_.arrivals == Arrivals::kPoisson) {
    next_ += nanoseconds(std::llround(exp_gap() * 1e9));
  } else {
    // computed from the start each time so rounding never accumulates
    ++k_;
    next_ = start_ + nanoseconds(std::llround((plan_.phase_s + static_cast<double>(k_) * period_s_) * 1e9));
  }
  if (next_ >= win_end_) generating_ = false;
}

// Issues every request due by `now`. Called by the arrival timer and after each response, so at
// high rates most requests leave from the completion path without a timer wake-up.
void Worker::Impl::issue_due(Time now) {
  while (generating_ && next_ <= now) {
    issue(next_);
    advance();
  }
}

void Worker::Impl::on_tick() {
  ticking_ = false;
  Time now = Clock::now();
  issue_due(now);
  if (!generating_) {
    check_done();
    return;
  }
  // When every connection is busy and the pool is at its limit, a wake-up could only move due
  // requests into the FIFO; the next answer does that (issue_due on completion) and re-arms
  // the timer when a connection turns idle. This saves a context switch per tick at saturation.
  if (idle_.empty() && static_cast<int>(conns_.size()) >= plan_.max_connections) return;
  // Wake no more often than every kMinTick: each wake-up costs an epoll_wait and a
  // timerfd_settime, which at 100k req/s would be a large share of the CPU. Requests due
  // in between are sent together; their latency still counts from their intended time.
  arm_tick(std::max(next_, now + kMinTick));
}

// Re-arms the arrival timer if it was parked at saturation and a request could now leave.
void Worker::Impl::maybe_tick() {
  if (generating_ && !ticking_ && !done_ &&
      (!idle_.empty() || static_cast<int>(conns_.size()) < plan_.max_connections))
    arm_tick(std::max(next_, Clock::now() + kMinTick));
}

void Worker::Impl::arm_tick(Time at) {
  ticking_ = true;
  timer_.expires_at(at);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) on_tick();
  });
}

void Worker::Impl::issue(Time intended) {
  Request r;
  r.intended = intended;
  r.op = o_.mix.next(rng_);
  r.counted = intended >= win_start_;
  if (r.counted) {
    ++outstanding_;
    if (!intervals_.empty()) {
      auto i = static_cast<std::size_t>(to_ns(intended - win_start_) /
                                        static_cast<std::uint64_t>(o_.interval_s * 1e9));
      r.interval = static_cast<int>(std::min(i, intervals_.size() - 1));
    }
  }
  if (!idle_.empty()) {
    ConnPtr c = std::move(idle_.back());
    idle_.pop_back();
    send(c, r);
    return;
  }
  pending_.push_back(r);
  maybe_open();
}

// ---- one request on one connection ----------------------------------------------------
void Worker::Impl::send(const ConnPtr& c, const Request& r) {
  Time now = Clock::now();
  if (r.counted) {
    ++sent_;
    if (now - r.intended > late_) ++late_sends_;
    if (r.interval >= 0) ++intervals_[static_cast<std::size_t>(r.interval)].sent;
  }
  c->state = Conn::State::kBusy;
  c->req = r;
  c->id = c->next_id++;
  c->in_len = 0;
  c->need = 0;
  c->out.clear();
  c->out_sent = 0;
  codec_.encode(r.op, c->id, c->out);
  // Write directly (the socket is non-blocking); only what does not fit waits for the poller.
  // The answer is read when the poller reports the socket readable: no recv is tried before.
  write_more(c);
}

void Worker::Impl::write_more(const ConnPtr& c) {
  boost::system::error_code ec;
  c->out_sent += c->sock.send(c->out.data() + c->out_sent, c->out.size() - c->out_sent, ec);
  if (ec && ec != asio::error::would_block) {
    fail(c, ErrorKind::kClosed);
    return;
  }
  bool unsent = c->out_sent < c->out.size();
  if (unsent != c->watching_write) {
    c->watching_write = unsent;
    poller_.watch_write(c->sock.fd(), key(*c), unsent, ec);
    if (ec) fail(c, ErrorKind::kIo);
  }
}

// ---- readiness -------------------------------------------------------------------------
void Worker::Impl::arm_poller() {
  poller_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !done_) on_poller_ready();
  });
}

void Worker::Impl::on_poller_ready() {
  std::array<Poller::Ready, kReadyBatch> ready;
  for (;;) {
    std::size_t n = poller_.poll(ready);
    for (std::size_t i = 0; i < n && !done_; ++i) {
      ConnPtr c = find(ready[i].key);  // holds it while its handlers may close it
      if (!c) continue;
      if (ready[i].writable && c->state == Conn::State::kBusy && c->out_sent < c->out.size()) write_more(c);
      if (ready[i].readable && c->state != Conn::State::kClosed) on_readable(c);
    }
    if (n < ready.size() || done_) break;
  }
  if (!done_) arm_poller();
}

// A connection with nothing in flight that turns readable was closed by the server (an idle
// keep-alive timeout) or sent bytes nobody asked for: either way it cannot carry a request.
void Worker::Impl::on_idle_readable(const ConnPtr& c) {
  char byte;
  boost::system::error_code ec;
  c->sock.recv(&byte, 1, ec);
  if (ec == asio::error::would_block) return;
  close(c);
  maybe_open();
}

void Worker::Impl::on_readable(const ConnPtr& c) {
  if (c->state == Conn::State::kIdle) {
    on_idle_readable(c);
    return;
  }
  if (c->state != Conn::State::kBusy) return;
  boost::system::error_code ec;
  for (;;) {
    if (ec) {
      bool closed = ec == asio::error::eof || ec == asio::error::connection_reset ||
                    ec == asio::error::broken_pipe || ec == asio::error::connection_aborted;
      fail(c, closed ? ErrorKind::kClosed : ErrorKind::kIo);
      return;
    }
    if (c->in.size() - c->in_len < kReadChunk / 4 || c->in.size() < c->need)
      c->in.resize(std::max(c->need, c->in.size() * 2));
    std::size_t n = c->sock.recv(c->in.data() + c->in_len, c->in.size() - c->in_len, ec);
    if (ec == asio::error::would_block) return;  // the poller reports the rest
    if (ec) continue;                            // reported at the top of the loop
    c->in_len += n;
    if (c->need > 0 && c->in_len < c->need) continue;
    Parsed p = codec_.parse(std::string_view(c->in.data(), c->in_len), c->id);
    if (!p.done) {
      c->need = p.length;
      continue;
    }
    on_response(c, p);
    return;
  }
}

void Worker::Impl::on_response(const ConnPtr& c, const Parsed& p) {
  Time now = Clock::now();
  Request r = c->req;
  if (p.ok && now - r.intended > timeout_) {
    // Answered, but after its timeout (the sweep had not caught it yet): a timeout either way,
    // so no recorded latency exceeds --timeout.
    time_out(r);
  } else if (p.ok) {
    if (now >= win_start_ && now < win_end_) {
      ++completions_;
      if (!intervals_.empty()) {
        auto i = to_ns(now - win_start_) / static_cast<std::uint64_t>(o_.interval_s * 1e9);
        ++intervals_[std::min<std::size_t>(i, intervals_.size() - 1)].completions;
      }
    }
    if (r.counted) {
      std::uint64_t lat = to_ns(now - r.intended);
      histogram_.record(lat);
      ++completed_;
      if (!o_.trace_path.empty())
        trace_.push_back({r.op.kind, r.op.size, r.op.key, r.op.offset, to_ns(r.intended - win_start_), lat});
      if (r.interval >= 0) {
        auto& iv = intervals_[static_cast<std::size_t>(r.interval)];
        ++iv.completed;
        iv.histogram.record(lat);
      }
      resolved();
    }
  } else {
    fail_request(r, p.error);
  }
  if (p.close || (!p.ok && p.error == ErrorKind::kProtocol)) {
    close(c);
    maybe_open();
  } else {
    became_idle(c);  // older waiting requests first
  }
  issue_due(now);
  if (!generating_) check_done();
}

void Worker::Impl::fail(const ConnPtr& c, ErrorKind kind) {
  Request r = c->req;
  bool busy = c->state == Conn::State::kBusy;
  close(c);
  if (busy) fail_request(r, kind);
  maybe_open();
  if (!generating_) check_done();
}

void Worker::Impl::fail_request(const Request& r, ErrorKind kind) {
  if (!r.counted) return;
  ++errors_[static_cast<std::size_t>(kind)];
  if (r.interval >= 0) ++intervals_[static_cast<std::size_t>(r.interval)].errors;
  resolved();
}

void Worker::Impl::time_out(const Request& r) {
  if (!r.counted) return;
  ++timeouts_;
  if (r.interval >= 0) ++intervals_[static_cast<std::size_t>(r.interval)].timeouts;
  resolved();
}

void Worker::Impl::resolved() { --outstanding_; }

// ---- timeouts and the end -------------------------------------------------------------
void Worker::Impl::arm_sweep() {
  auto period = std::clamp(timeout_ / 10, Clock::duration(std::chrono::milliseconds(1)),
                           Clock::duration(std::chrono::milliseconds(50)));
  sweep_.expires_after(period);
  sweep_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || done_) return;
    sweep();
    if (!done_) arm_sweep();
  });
}

void Worker::Impl::sweep() {
  Time now = Clock::now();
  while (!pending_.empty() && now - pending_.front().intended > timeout_) {
    Request r = pending_.front();
    pending_.pop_front();
    time_out(r);
  }
  auto busy = conns_;
  for (auto& c : busy) {
    if (c->state == Conn::State::kBusy && now - c->req.intended > timeout_) {
      Request r = c->req;
      close(c);  // the late answer must not be taken for the next request's
      time_out(r);
    }
  }
  issue_due(now);
  maybe_open();
  maybe_tick();
  check_done();
}

void Worker::Impl::check_done() {
  if (done_ || generating_ || outstanding_ > 0) return;
  done_ = true;
  timer_.cancel();
  sweep_.cancel();
  close_all();
  poller_.close();
  pending_.clear();
  io_.stop();
}

Worker::Worker(const LoadOptions& o, const Codec& codec, const tcp::endpoint& ep, const WorkerPlan& plan)
    : impl_(std::make_unique<Impl>(o, codec, ep, plan)) {}
Worker::~Worker() noexcept = default;
void Worker::run() { impl_->run(); }
LoadResult Worker::result() const { return impl_->result(); }
std::vector<TraceRecord> Worker::take_trace() { return impl_->take_trace(); }

}  // namespace wb
