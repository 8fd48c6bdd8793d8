#include "sut/refserver.hpp"

#include <cmath>

#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace wb::sut {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

std::uint64_t pick_seed(const ServerOptions& o) {
  if (o.seed) return *o.seed;
  std::random_device rd;
  return (std::uint64_t{rd()} << 32) ^ rd();
}

tcp::endpoint endpoint_of(const ServerOptions& o) {
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(o.bind, ec);
  if (ec) throw InputError("--bind: '" + o.bind + "' is not an IP address");
  return {address, static_cast<unsigned short>(o.port)};
}

std::unique_ptr<BlockCache> make_cache(const ServerOptions& o) {
  if (o.cache_mb < 0) return nullptr;
  const auto block = static_cast<std::uint64_t>(std::llround(o.cache_block_kb * 1024));
  const auto blocks = static_cast<std::uint64_t>(o.cache_mb * 1024 * 1024 / static_cast<double>(block));
  return std::make_unique<BlockCache>(blocks, block,
                                      o.cache_policy == "clock" ? CachePolicy::kClock : CachePolicy::kLru);
}

}  // namespace

Refserver::Refserver(const ServerOptions& options)
    : options_(options),
      seed_(pick_seed(options)),
      acceptor_(io_),
      signals_(io_, SIGINT, SIGTERM),
      accept_retry_(io_),
      stats_(options.disks),
      disks_(options.disks),
      cache_(make_cache(options)),
      service_(options_, seed_, stats_, disks_, cache_.get(), stop_),
      workers_(options.threads, service_) {
  const tcp::endpoint ep = endpoint_of(options_);
  try {
    acceptor_.open(ep.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  } catch (const boost::system::system_error& e) {
    stop();
    throw Error("cannot listen on " + options_.bind + ":" + std::to_string(options_.port) + ": " +
                e.code().message());
  }
  port_ = acceptor_.local_endpoint().port();
  signals_.async_wait([this](boost::system::error_code ec, int) {
    if (!ec) stop();
  });
  accept();
}

Refserver::~Refserver() noexcept {
  stop_.stop();
  disks_.stop();
  workers_.stop();
}

void Refserver::accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](boost::system::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec) {
      // Out of descriptors or similar: back off instead of spinning on the error.
      std::fprintf(stderr, "refserver: accept: %s\n", ec.message().c_str());
      accept_retry_.expires_after(std::chrono::milliseconds(50));
      accept_retry_.async_wait([this](boost::system::error_code tec) {
        if (!tec) accept();
      });
      return;
    }
    std::make_shared<Connection>(std::move(socket), *this)->start();
    accept();
  });
}

void Refserver::run() {
  std::vector<std::thread> extra;
  for (int i = 1; i < options_.io_threads; ++i) extra.emplace_back([this] { io_.run(); });
  io_.run();
  for (std::thread& t : extra) t.join();
  stop_.stop();
  disks_.stop();
  workers_.stop();
}

void Refserver::stop() {
  // Closing the acceptor and the signal set must happen on the io_context's threads; post it.
  asio::post(io_, [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    signals_.cancel(ignored);
    accept_retry_.cancel();
    io_.stop();
  });
  stop_.stop();
  disks_.stop();
}

void Refserver::on_request(const std::shared_ptr<Connection>& conn, const rpc::Request& req,
                           std::uint32_t body_size, std::chrono::steady_clock::time_point arrival) {
  const auto bad = [&](const std::string& why) {
    stats_.count_bad_request();
    conn->reply(req.id, rpc::Status::kBadRequest, 0, why);
  };
  const bool is_write = req.op == rpc::Op::kWrite;
  const std::uint64_t expected = rpc::kRequestBodySize + (is_write ? std::uint64_t{req.size} : 0);
  switch (req.op) {
    case rpc::Op::kNoop:
    case rpc::Op::kRead:
    case rpc::Op::kWrite:
    case rpc::Op::kMetadata:
    case rpc::Op::kStats: break;
    default: return bad("unknown op " + std::to_string(static_cast<int>(req.op)));
  }
  if (body_size != expected)
    return bad("frame length " + std::to_string(body_size) + " does not match op and size (expected " +
               std::to_string(expected) + ")");
  if (req.op == rpc::Op::kRead && req.size > rpc::kMaxFrame - rpc::kResponseHeaderSize)
    return bad("read size " + std::to_string(req.size) + " exceeds the largest frame");

  if (req.op == rpc::Op::kNoop) {
    stats_.count_noop();
    conn->reply(req.id, rpc::Status::kOk, 0);
    return;
  }
  if (req.op == rpc::Op::kStats) {
    conn->reply(req.id, rpc::Status::kOk, 0, stats((req.flags & kFlagStatsReset) != 0).dump());
    return;
  }
  Job job;
  job.request = req;
  job.arrival = arrival;
  job.seq = arrivals_++;
  job.done = [conn](const rpc::Request& r, rpc::Status status) {
    conn->reply(r.id, status, r.op == rpc::Op::kRead ? r.size : 0);
  };
  workers_.submit(std::move(job));
}

nlohmann::json Refserver::config_json() const {
  nlohmann::json slow = nlohmann::json::array();
  for (const SlowDisk& s : options_.slow_disks) slow.push_back({{"index", s.index}, {"factor", s.factor}});
  return {{"threads", options_.threads},
          {"disks", options_.disks},
          {"io_threads", options_.io_threads},
          {"cpu_mode", to_string(options_.cpu_mode)},
          {"cpu_ms", options_.cpu.mean_ms},
          {"cpu_dist", to_string(options_.cpu.dist)},
          {"cpu_cv", options_.cpu.cv},
          {"disk_ms", options_.disk.mean_ms},
          {"disk_dist", to_string(options_.disk.dist)},
          {"disk_cv", options_.disk.cv},
          {"seq_factor", options_.seq_factor},
          {"seed", seed_},
          {"slow_disks", std::move(slow)},
          {"serialize_above", options_.serialize_above},
          {"create_cost_ms", options_.create_cost_ms},
          {"stall_every_s", options_.stall_every_s},
          {"stall_for_s", options_.stall_for_s},
          {"cache_mb", options_.cache_mb},
          {"cache_block_kb", options_.cache_block_kb},
          {"cache_policy", options_.cache_policy}};
}

nlohmann::json Refserver::stats(bool reset) {
  stats_.count_stats_request();
  nlohmann::json j = stats_.snapshot();
  j["config"] = config_json();
  j["files_created"] = service_.files_created();
  if (cache_) {
    j["cache"] = cache_->stats();
    if (reset) cache_->reset_counts();
  }
  j["now"] = {{"thread_queue_length", workers_.queue_length()},
              {"busy_threads", service_.busy_threads()},
              {"disk_queue_length", disks_.queue_length()}};
  if (reset) stats_.reset();
  return j;
}

}  // namespace wb::sut
