#pragma once
// Refserver: the whole reference server (acceptor, connections, thread queue, workers, disks,
// statistics) behind one object that refserver_main.cpp constructs and runs.
// Ownership: it owns everything it creates; its io_context is destroyed last, after the workers are
// joined and their queued jobs (holding connections) are gone.
// Threads: the constructor binds and listens (port() is final); run() serves on the calling thread plus
// io_threads-1 more until SIGINT/SIGTERM or stop() (safe from any thread), then joins them all.
// Requests: noop and stats on the io thread; read, write and metadata through the WorkerPool; an
// unknown op, a write frame not 16 + size long, a longer non-write frame or a read too large for a
// frame get Status::kBadRequest and a one-line message.
// Failure: the constructor throws wb::InputError for a bad --bind address, wb::Error if it cannot listen.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/asio.hpp"
#include "sut/block_cache.hpp"
#include "sut/connection.hpp"
#include "sut/disk_pool.hpp"
#include "sut/request_service.hpp"
#include "sut/server_options.hpp"
#include "sut/stage_stats.hpp"
#include "sut/stop_flag.hpp"
#include "sut/worker_pool.hpp"

namespace wb::sut {

class Refserver final : public FrameHandler {
 public:
  explicit Refserver(const ServerOptions& options);
  ~Refserver() noexcept override;
  Refserver(const Refserver&) = delete;
  Refserver& operator=(const Refserver&) = delete;

  unsigned short port() const noexcept { return port_; }
  std::uint64_t seed() const noexcept { return seed_; }
  void run();
  void stop();
  // The stats object documented in sut/stage_stats.hpp; resets afterwards if `reset`.
  nlohmann::json stats(bool reset);

  void on_request(const std::shared_ptr<Connection>& conn, const rpc::Request& request,
                  std::uint32_t body_size, std::chrono::steady_clock::time_point arrival) override;

 private:
  void accept();
  nlohmann::json config_json() const;

  const ServerOptions options_;
  const std::uint64_t seed_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer accept_retry_;
  unsigned short port_ = 0;
  std::atomic<std::uint64_t> arrivals_{0};
  StopFlag stop_;
  StageStats stats_;
  DiskPool disks_;
  std::unique_ptr<BlockCache> cache_;  // null without --cache-mb
  RequestService service_;
  WorkerPool workers_;  // last: its threads use everything above
};

}  // namespace wb::sut
