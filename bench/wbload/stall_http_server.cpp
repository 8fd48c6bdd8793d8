// stall_http_server: a tiny HTTP/1.1 keep-alive server for the coordinated-omission benchmark.
// It behaves like refserver's thread pool, but speaks HTTP so that wrk (HTTP only) and wbload can
// be compared against the same stalling server:
//   - `slots` requests are in service at a time (FIFO queue in front), each for `service_ms`
//     (fixed), so its capacity is slots / service_ms;
//   - during the windows [k*every, k*every + for) seconds after start (k = 1, 2, ...) no request
//     starts service; requests in service finish, queued ones wait (refserver's --stall-every).
// Usage: stall_http_server --port P --slots N --service-ms X --stall-every S --stall-for T
// Prints "ready <port>" once listening on 127.0.0.1. Single-threaded; stops on SIGTERM/SIGINT.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>

#include "core/asio.hpp"

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int port = 0;
  int slots = 4;
  double service_ms = 5;
  double stall_every = 10;
  double stall_for = 1;
};

class Server;

struct Session : std::enable_shared_from_this<Session> {
  Session(tcp::socket s, Server& srv) : sock(std::move(s)), server(srv) {}
  void read();
  tcp::socket sock;
  Server& server;
  std::string in;
  char buf[4096];
};

class Server {
 public:
  Server(asio::io_context& io, const Options& o)
      : io_(io),
        o_(o),
        acceptor_(io,
                  tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(o.port))),
        wake_(io),
        start_(Clock::now()) {}

  unsigned short port() const { return acceptor_.local_endpoint().port(); }

  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      if (ec) return;
      s.set_option(tcp::no_delay(true));
      std::make_shared<Session>(std::move(s), *this)->read();
      accept();
    });
  }

  void enqueue(std::shared_ptr<Session> s) {
    queue_.push_back(std::move(s));
    dispatch();
  }

 private:
  // End of the stall window containing `t`, or t itself when not stalled.
  Clock::time_point stall_end(Clock::time_point t) const {
    double since = std::chrono::duration<double>(t - start_).count();
    if (o_.stall_every <= 0 || since < o_.stall_every) return t;
    double k = std::floor(since / o_.stall_every);
    double into = since - k * o_.stall_every;
    if (into >= o_.stall_for) return t;
    return start_ + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(k * o_.stall_every + o_.stall_for));
  }

  void dispatch() {
    while (busy_ < o_.slots && !queue_.empty()) {
      auto now = Clock::now();
      auto end = stall_end(now);
      if (end > now) {
        if (!waiting_) {
          waiting_ = true;
          wake_.expires_at(end);
          wake_.async_wait([this](boost::system::error_code) {
            waiting_ = false;
            dispatch();
          });
        }
        return;
      }
      auto s = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
      auto t = std::make_shared<asio::steady_timer>(
          io_, std::chrono::microseconds(static_cast<long>(o_.service_ms * 1000)));
      t->async_wait([this, s, t](boost::system::error_code) {
        --busy_;
        static const std::string kResponse =
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\nok\n";
        asio::async_write(s->sock, asio::buffer(kResponse), [](boost::system::error_code, std::size_t) {});
        s->read();
        dispatch();
      });
    }
  }

  asio::io_context& io_;
  Options o_;
  tcp::acceptor acceptor_;
  asio::steady_timer wake_;
  Clock::time_point start_;
  std::deque<std::shared_ptr<Session>> queue_;
  int busy_ = 0;
  bool waiting_ = false;
};

void Session::read() {
  // One request in flight per connection (wbload and wrk do not pipeline); a request is complete
  // at the blank line (GET without a body).
  auto end = in.find("\r\n\r\n");
  if (end != std::string::npos) {
    in.erase(0, end + 4);
    server.enqueue(shared_from_this());
    return;
  }
  sock.async_read_some(asio::buffer(buf),
                       [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                         if (ec) return;
                         self->in.append(self->buf, n);
                         self->read();
                       });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    double v = std::atof(argv[i + 1]);
    if (k == "--port")
      o.port = static_cast<int>(v);
    else if (k == "--slots")
      o.slots = static_cast<int>(v);
    else if (k == "--service-ms")
      o.service_ms = v;
    else if (k == "--stall-every")
      o.stall_every = v;
    else if (k == "--stall-for")
      o.stall_for = v;
    else {
      std::fprintf(stderr, "stall_http_server: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  asio::io_context io(1);
  Server server(io, o);
  server.accept();
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code, int) { io.stop(); });
  std::printf("ready %u\n", static_cast<unsigned>(server.port()));
  std::fflush(stdout);
  io.run();
  return 0;
}
