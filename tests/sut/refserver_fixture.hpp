#pragma once
// Test helpers for the real refserver: start it on a free loopback port (RAII, always killed),
// and a blocking client for core/rpc_protocol.hpp with a receive timeout so no test can hang.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.hpp"
#include "core/rpc_protocol.hpp"

namespace wb::test {

std::string refserver_path();

// A running refserver: `--port 0 --bind 127.0.0.1` plus `args`; waits for "ready <port>".
class TestServer {
 public:
  explicit TestServer(const std::vector<std::string>& args);
  int port() const noexcept { return port_; }
  ChildProcess& process() noexcept { return *child_; }

 private:
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
};

struct Response {
  std::uint64_t id = 0;
  rpc::Status status = rpc::Status::kError;
  std::string data;
};

class RpcClient {
 public:
  explicit RpcClient(int port);
  ~RpcClient() noexcept;
  RpcClient(const RpcClient&) = delete;
  RpcClient& operator=(const RpcClient&) = delete;

  void send(rpc::Op op, std::uint32_t size, std::uint64_t id, std::uint8_t flags = 0);
  // Sends several requests in one write, so they arrive together.
  void send_batch(const std::vector<rpc::Request>& requests);
  // Sends raw bytes (for malformed frames).
  void send_raw(const std::vector<std::uint8_t>& bytes);
  // Throws std::runtime_error on EOF or after the 10 s receive timeout.
  Response receive();
  // True if the server closed the connection (EOF) within 5 s.
  bool closed_by_peer();
  Response call(rpc::Op op, std::uint32_t size, std::uint64_t id, std::uint8_t flags = 0);
  nlohmann::json stats(bool reset = false);

 private:
  void read_exact(std::uint8_t* p, std::size_t n);
  int fd_ = -1;
};

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The per-stage entry stats["ops"][op]["stages"][stage][field].
double stage(const nlohmann::json& stats, const char* op, const char* stage_name,
             const char* field = "mean_ms");

// Emulated stage times are exact sums of doubles; allow their rounding.
constexpr double kEps = 1e-6;

// refserver flags for `threads` workers and `disks` disks with deterministic CPU and disk times (the
// CPU stage sleeps), so that stage times can be checked exactly.
inline std::vector<std::string> det(const std::string& threads, const std::string& disks,
                                    const std::string& cpu_ms, const std::string& disk_ms) {
  return {"--threads",     threads,     "--disks", disks,         "--cpu-ms",      cpu_ms,       "--cpu-dist",
          "deterministic", "--disk-ms", disk_ms,   "--disk-dist", "deterministic", "--cpu-mode", "sleep"};
}

}  // namespace wb::test
