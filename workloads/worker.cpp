#include "workloads/worker.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <random>
#include <vector>

#include "workloads/poller.hpp"

namespace wb {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using Time = Clock::time_point;
using std::chrono::nanoseconds;

constexpr std::size_t kReadChunk = 16 * 1024;
constexpr auto kMinTick = std::chrono::microseconds(20);
constexpr std::size_t kReadyBatch = 256;  // sockets taken from the poller per epoll_wait
// Busy-polling: see Worker::Impl::loop().
constexpr auto kSpin = std::chrono::microseconds(50);
constexpr auto kSpinWhenGapBelow = std::chrono::microseconds(25);

struct Request {
  Time intended;
  Operation op;
  bool counted = false;  // intended inside the measurement window
  int interval = -1;     // index into the intervals, when recorded
};

struct Conn {
  Conn(asio::io_context& io, std::uint32_t n) : connector(io), serial(n) {}
  enum class State { kConnecting, kIdle, kBusy, kClosed };
  tcp::socket connector;  // only while connecting; then its descriptor moves to `sock`
  NativeSocket sock;
  std::uint32_t serial;  // tells a socket's poller events from those of an earlier one on its fd
  State state = State::kConnecting;
  std::string out;
  std::size_t out_sent = 0;     // bytes of `out` written
  bool watching_write = false;  // the poller also reports writability (a send did not fit)
  std::vector<char> in;
  std::size_t in_len = 0;
  std::size_t need = 0;
  Request req;
  std::uint64_t next_id = 1;
  std::uint64_t id = 0;
};

using ConnPtr = std::shared_ptr<Conn>;

std::uint64_t to_ns(Clock::duration d) {
  auto n = std::chrono::duration_cast<nanoseconds>(d).count();
  return n > 0 ? static_cast<std::uint64_t>(n) : 0;
}

}  // namespace

class Worker::Impl {
 public:
  Impl(const LoadOptions& o, const Codec& codec, const tcp::endpoint& ep, const WorkerPlan& plan)
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

  ~Impl() noexcept { close_all(); }

  void run() {
    for (int i = 0; i < plan_.connections; ++i) open();
    arm_tick(std::min(next_, win_end_));  // no request at all in the window: finish at its end
    arm_sweep();
    arm_poller();
    loop();
  }

  LoadResult result() const {
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

 private:
  // The event loop: io_context::run, except that while events come in quick succession it polls
  // for up to kSpin after the last one before it sleeps. Why: against a fast server every answer
  // used to find the thread asleep in epoll_wait (0.4-1.0 sleeps per request at 70-80k/s against
  // nginx), so the server's send had to wake it -- CPU the server's own core pays, and on a small
  // machine a wake-up the scheduler may place on the server's core, where the two then share one
  // CPU. Spinning only while the mean gap between events (EWMA) is below kSpinWhenGapBelow bounds
  // the cost: at low rates it never spins, and when the spin stops paying (events no longer come
  // within kSpin, e.g. because the server shares this core and cannot run while we spin) the gap
  // grows past the threshold and the loop sleeps again. Timers and sockets are served the same way
  // either way, so send times and latencies are unchanged -- only punctual more often.
  void loop() {
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
  double exp_gap() { return std::exponential_distribution<double>(plan_.rate)(rng_); }

  void advance() {
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
  void issue_due(Time now) {
    while (generating_ && next_ <= now) {
      issue(next_);
      advance();
    }
  }

  void on_tick() {
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
  void maybe_tick() {
    if (generating_ && !ticking_ && !done_ &&
        (!idle_.empty() || static_cast<int>(conns_.size()) < plan_.max_connections))
      arm_tick(std::max(next_, Clock::now() + kMinTick));
  }

  void arm_tick(Time at) {
    ticking_ = true;
    timer_.expires_at(at);
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) on_tick();
    });
  }

  void issue(Time intended) {
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

  // ---- connections ----------------------------------------------------------------------
  void maybe_open() {
    if (pending_.size() > connecting_ && static_cast<int>(conns_.size()) < plan_.max_connections) open();
  }

  void open() {
    auto c = std::make_shared<Conn>(io_, ++serial_);
    c->in.resize(kReadChunk);
    conns_.push_back(c);
    ++connecting_;
    c->connector.async_connect(ep_, [this, c](boost::system::error_code ec) {
      if (c->state == Conn::State::kClosed) return;
      if (!ec) ec = adopt(c);
      if (ec) {
        close(c);  // also leaves the connecting count
        // A refused connection fails the oldest waiting request, so a dead server produces
        // errors at the offered rate instead of a silent backlog.
        if (!pending_.empty()) {
          Request r = pending_.front();
          pending_.pop_front();
          fail_request(r, ErrorKind::kConnect);
        }
        maybe_open();
        return;
      }
      --connecting_;
      c->state = Conn::State::kIdle;
      became_idle(c);
    });
  }

  // Moves a connected socket from Asio's reactor into the poller (see poller.hpp for why).
  boost::system::error_code adopt(const ConnPtr& c) {
    boost::system::error_code ec;
    c->connector.set_option(tcp::no_delay(true), ec);
    c->connector.non_blocking(true, ec);
    if (ec) return ec;
    int fd = c->connector.release(ec);
    if (ec) return ec;
    c->sock = NativeSocket(fd);
    poller_.add(fd, key(*c), ec);
    if (ec) return ec;
    auto slot = static_cast<std::size_t>(fd);
    if (by_fd_.size() <= slot) by_fd_.resize(slot + 1);
    by_fd_[slot] = c;
    return ec;
  }

  static std::uint64_t key(const Conn& c) {
    return (std::uint64_t{c.serial} << 32) | static_cast<std::uint32_t>(c.sock.fd());
  }

  // The open connection an event's key names, or null (closed since the event was taken).
  ConnPtr find(std::uint64_t key) const {
    auto slot = static_cast<std::size_t>(key & 0xffffffffu);
    if (slot >= by_fd_.size() || !by_fd_[slot] || by_fd_[slot]->serial != key >> 32) return nullptr;
    return by_fd_[slot];
  }

  void became_idle(const ConnPtr& c) {
    if (done_) return;
    if (!pending_.empty()) {
      Request r = pending_.front();
      pending_.pop_front();
      send(c, r);
    } else {
      c->state = Conn::State::kIdle;
      idle_.push_back(c);
      maybe_tick();
    }
  }

  void close(const ConnPtr& c) {
    if (c->state == Conn::State::kClosed) return;
    if (c->state == Conn::State::kConnecting) --connecting_;
    c->state = Conn::State::kClosed;
    boost::system::error_code ignored;
    c->connector.close(ignored);
    if (c->sock.is_open()) {
      auto slot = static_cast<std::size_t>(c->sock.fd());
      if (slot < by_fd_.size() && by_fd_[slot] == c) by_fd_[slot].reset();
      c->sock.close();
    }
    std::vector<char>().swap(c->in);
    std::string().swap(c->out);
    conns_.erase(std::remove(conns_.begin(), conns_.end(), c), conns_.end());
    idle_.erase(std::remove(idle_.begin(), idle_.end(), c), idle_.end());
    maybe_tick();
  }

  void close_all() {
    auto all = conns_;
    for (auto& c : all) close(c);
  }

  // ---- one request on one connection ----------------------------------------------------
  void send(const ConnPtr& c, const Request& r) {
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

  void write_more(const ConnPtr& c) {
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
  void arm_poller() {
    poller_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec && !done_) on_poller_ready();
    });
  }

  void on_poller_ready() {
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
  void on_idle_readable(const ConnPtr& c) {
    char byte;
    boost::system::error_code ec;
    c->sock.recv(&byte, 1, ec);
    if (ec == asio::error::would_block) return;
    close(c);
    maybe_open();
  }

  void on_readable(const ConnPtr& c) {
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

  void on_response(const ConnPtr& c, const Parsed& p) {
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

  void fail(const ConnPtr& c, ErrorKind kind) {
    Request r = c->req;
    bool busy = c->state == Conn::State::kBusy;
    close(c);
    if (busy) fail_request(r, kind);
    maybe_open();
    if (!generating_) check_done();
  }

  void fail_request(const Request& r, ErrorKind kind) {
    if (!r.counted) return;
    ++errors_[static_cast<std::size_t>(kind)];
    if (r.interval >= 0) ++intervals_[static_cast<std::size_t>(r.interval)].errors;
    resolved();
  }

  void time_out(const Request& r) {
    if (!r.counted) return;
    ++timeouts_;
    if (r.interval >= 0) ++intervals_[static_cast<std::size_t>(r.interval)].timeouts;
    resolved();
  }

  void resolved() { --outstanding_; }

  // ---- timeouts and the end -------------------------------------------------------------
  void arm_sweep() {
    auto period = std::clamp(timeout_ / 10, Clock::duration(std::chrono::milliseconds(1)),
                             Clock::duration(std::chrono::milliseconds(50)));
    sweep_.expires_after(period);
    sweep_.async_wait([this](const boost::system::error_code& ec) {
      if (ec || done_) return;
      sweep();
      if (!done_) arm_sweep();
    });
  }

  void sweep() {
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

  void check_done() {
    if (done_ || generating_ || outstanding_ > 0) return;
    done_ = true;
    timer_.cancel();
    sweep_.cancel();
    close_all();
    poller_.close();
    pending_.clear();
    io_.stop();
  }

  const LoadOptions& o_;
  const Codec& codec_;
  tcp::endpoint ep_;
  WorkerPlan plan_;
  asio::io_context io_;
  asio::steady_timer timer_;
  asio::steady_timer sweep_;
  Poller poller_;  // readiness of every connected socket
  std::mt19937_64 rng_;

  Time start_, win_start_, win_end_, next_;
  Clock::duration timeout_{}, late_{};
  double period_s_ = 0;
  std::uint64_t k_ = 0;
  bool generating_ = true;
  bool ticking_ = false;  // the arrival timer is armed
  bool done_ = false;

  std::vector<ConnPtr> conns_;  // every connection not closed
  std::vector<ConnPtr> by_fd_;  // connected ones by descriptor, for the poller's events
  std::uint32_t serial_ = 0;
  std::vector<ConnPtr> idle_;  // connected and free
  std::size_t connecting_ = 0;
  std::deque<Request> pending_;  // due requests waiting for a connection, oldest first

  std::uint64_t outstanding_ = 0;  // counted requests not yet resolved
  std::uint64_t sent_ = 0, completed_ = 0, completions_ = 0, timeouts_ = 0, late_sends_ = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(ErrorKind::kCount)> errors_{};
  LatencyHistogram histogram_;
  std::vector<LoadInterval> intervals_;
};

Worker::Worker(const LoadOptions& o, const Codec& codec, const tcp::endpoint& ep, const WorkerPlan& plan)
    : impl_(std::make_unique<Impl>(o, codec, ep, plan)) {}
Worker::~Worker() noexcept = default;
void Worker::run() { impl_->run(); }
LoadResult Worker::result() const { return impl_->result(); }

}  // namespace wb
