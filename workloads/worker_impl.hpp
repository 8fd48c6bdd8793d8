#pragma once
// Internal to the Worker: Worker::Impl and its records (a request, a connection). worker.cpp holds the
// timeline (event loop, arrivals, requests, timeouts, the end), worker_connections.cpp the connections
// (opening, adopting, closing). Use Worker (worker.hpp).
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "workloads/poller.hpp"
#include "workloads/worker.hpp"

namespace wb {
namespace worker_detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using Time = Clock::time_point;
using std::chrono::nanoseconds;

inline constexpr std::size_t kReadChunk = std::size_t{16} * 1024;

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

}  // namespace worker_detail

class Worker::Impl {
  using Clock = worker_detail::Clock;
  using Time = worker_detail::Time;
  using tcp = worker_detail::tcp;
  using Request = worker_detail::Request;
  using Conn = worker_detail::Conn;
  using ConnPtr = worker_detail::ConnPtr;

 public:
  Impl(const LoadOptions& o, const Codec& codec, const tcp::endpoint& ep, const WorkerPlan& plan);
  ~Impl() noexcept;

  void run();
  LoadResult result() const;
  std::vector<TraceRecord> take_trace() { return std::move(trace_); }

 private:
  void loop();

  // ---- arrivals (worker.cpp) ------------------------------------------------------------
  double exp_gap();
  void advance();
  void issue_due(Time now);
  void on_tick();
  void maybe_tick();
  void arm_tick(Time at);
  void issue(Time intended);

  // ---- connections (worker_connections.cpp) ---------------------------------------------
  void maybe_open();
  void open();
  boost::system::error_code adopt(const ConnPtr& c);
  static std::uint64_t key(const Conn& c);
  ConnPtr find(std::uint64_t key) const;
  void became_idle(const ConnPtr& c);
  void close(const ConnPtr& c);
  void close_all();

  // ---- one request on one connection (worker.cpp) ---------------------------------------
  void send(const ConnPtr& c, const Request& r);
  void write_more(const ConnPtr& c);

  // ---- readiness (worker.cpp) -----------------------------------------------------------
  void arm_poller();
  void on_poller_ready();
  void on_idle_readable(const ConnPtr& c);
  void on_readable(const ConnPtr& c);
  void on_response(const ConnPtr& c, const Parsed& p);
  void fail(const ConnPtr& c, ErrorKind kind);
  void fail_request(const Request& r, ErrorKind kind);
  void time_out(const Request& r);
  void resolved();

  // ---- timeouts and the end (worker.cpp) ------------------------------------------------
  void arm_sweep();
  void sweep();
  void check_done();

  const LoadOptions& o_;
  const Codec& codec_;
  tcp::endpoint ep_;
  WorkerPlan plan_;
  boost::asio::io_context io_;
  boost::asio::steady_timer timer_;
  boost::asio::steady_timer sweep_;
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
  std::vector<TraceRecord> trace_;  // only with o_.trace_path
};

}  // namespace wb
