#include "harness/sut_stage_stats.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/asio.hpp"
#include "core/error.hpp"
#include "core/rpc_protocol.hpp"

namespace wb {

namespace {

// refserver's stats request flag: reset the counters after answering (sut/stage_stats.hpp
// kFlagStatsReset; sut/ is a stand-alone program the harness does not link).
constexpr std::uint8_t kStatsResetFlag = 2;

}  // namespace

nlohmann::json fetch_refserver_stats(const std::string& address, int port, bool reset,
                                     std::chrono::milliseconds timeout) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  boost::system::error_code parse_ec;
  auto ip = asio::ip::make_address(address, parse_ec);
  if (parse_ec) throw Error(fmt::format("refserver stats: '{}' is not an IP address", address));
  asio::ip::tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  std::array<std::uint8_t, rpc::kLengthSize> length{};
  std::vector<std::uint8_t> body;
  std::optional<boost::system::error_code> done;
  rpc::Request req;
  req.op = rpc::Op::kStats;
  req.flags = reset ? kStatsResetFlag : 0;
  req.id = 1;
  const auto frame = rpc::encode_request(req);
  auto fail = [&](boost::system::error_code ec) { done = ec; };
  socket.async_connect(endpoint, [&](boost::system::error_code ec) {
    if (ec) return fail(ec);
    asio::async_write(socket, asio::buffer(frame), [&](boost::system::error_code ec2, std::size_t) {
      if (ec2) return fail(ec2);
      asio::async_read(socket, asio::buffer(length), [&](boost::system::error_code ec3, std::size_t) {
        if (ec3) return fail(ec3);
        std::uint32_t n = rpc::get_u32(length.data());
        if (n < rpc::kResponseHeaderSize || n > rpc::kMaxFrame) return fail(asio::error::invalid_argument);
        body.resize(n);
        asio::async_read(socket, asio::buffer(body),
                         [&](boost::system::error_code ec4, std::size_t) { fail(ec4); });
      });
    });
  });
  io.run_for(timeout);
  const std::string where = fmt::format("refserver stats from {}:{}", address, port);
  if (!done) throw Error(where + ": no answer within " + std::to_string(timeout.count()) + " ms");
  if (*done) throw Error(where + ": " + done->message());
  if (body[8] != static_cast<std::uint8_t>(rpc::Status::kOk)) throw Error(where + ": the server refused");
  try {
    return nlohmann::json::parse(body.begin() + rpc::kResponseHeaderSize, body.end());
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": not JSON: " + e.what());
  }
}

bool sut_reports_stages(const TestbedConfig& testbed) {
  return testbed.sut.start.find("{refserver}") != std::string::npos;
}

std::map<std::string, double> stage_means_from_refserver_stats(const nlohmann::json& stats) {
  std::map<std::string, double> totals;
  double count = 0;
  try {
    const auto& ops = stats.at("ops");
    for (const char* kind : {"read", "write", "metadata"}) {
      if (!ops.contains(kind)) continue;
      const auto& op = ops.at(kind);
      const double n = op.value("count", 0.0);
      if (n <= 0) continue;
      count += n;
      for (const auto& [stage, v] : op.at("stages").items()) totals[stage] += v.at("total_ms").get<double>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("refserver stats: unexpected shape: ") + e.what());
  }
  std::map<std::string, double> means;
  if (count <= 0) return means;
  for (const auto& [stage, total] : totals) means[stage] = total / count;
  return means;
}

}  // namespace wb
