#include "controller/refserver_stats.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "core/asio.hpp"
#include "core/error.hpp"
#include "core/rpc_protocol.hpp"

namespace wb {

namespace asio = boost::asio;

nlohmann::json fetch_refserver_stats(const std::string& address, int port,
                                     std::chrono::milliseconds timeout) {
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  asio::ip::tcp::endpoint endpoint(asio::ip::make_address(address), static_cast<unsigned short>(port));
  std::array<std::uint8_t, rpc::kLengthSize> length{};
  std::vector<std::uint8_t> body;
  std::optional<boost::system::error_code> done;
  rpc::Request req;
  req.op = rpc::Op::kStats;
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
  if (body[8] != static_cast<std::uint8_t>(rpc::Status::kOk))
    throw Error(where + ": the server refused the request");
  try {
    return nlohmann::json::parse(body.begin() + rpc::kResponseHeaderSize, body.end());
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": not JSON: " + e.what());
  }
}

namespace {

struct StageSum {
  double total_ms = 0;
  double count = 0;
};

StageSum sum_stage(const nlohmann::json& ops, std::initializer_list<const char*> kinds, const char* stage) {
  StageSum s;
  for (const char* kind : kinds) {
    if (!ops.contains(kind)) continue;
    const auto& op = ops.at(kind);
    double count = op.value("count", 0.0);
    if (count <= 0) continue;
    s.count += count;
    s.total_ms += op.at("stages").at(stage).at("total_ms").get<double>();
  }
  return s;
}

}  // namespace

std::vector<CalibratedDemand> demands_from_refserver_stats(const nlohmann::json& stats,
                                                           const QueueNetwork& net, const Sample& sample,
                                                           std::optional<double> end_to_end_ms) {
  std::vector<CalibratedDemand> out;
  try {
    const auto& ops = stats.at("ops");
    StageSum cpu = sum_stage(ops, {"read", "write", "metadata"}, "cpu");
    StageSum disk = sum_stage(ops, {"read", "write"}, "disk");
    if (cpu.count <= 0) throw Error("refserver stats counted no read, write or metadata request");
    const ServiceCenter* c = net.find("cpu");
    if (c != nullptr && !c->pool && cpu.total_ms > 0) {
      out.push_back(
          CalibratedDemand{"cpu", sample, cpu.total_ms / cpu.count, 1.0,
                           fmt::format("refserver stats: cpu stage over {:.0f} requests", cpu.count), ""});
    }
    const ServiceCenter* d = net.find("disk");
    if (d != nullptr && !d->pool && disk.count > 0) {
      out.push_back(CalibratedDemand{
          "disk", sample, disk.total_ms / disk.count, disk.count / cpu.count,
          fmt::format("refserver stats: disk stage over {:.0f} of {:.0f} requests", disk.count, cpu.count),
          ""});
    }
    const ServiceCenter* n = net.find("net");
    if (n != nullptr && !n->pool && n->within.empty() && n->discipline == Discipline::kDelay &&
        end_to_end_ms) {
      StageSum residence = sum_stage(ops, {"read", "write", "metadata"}, "residence");
      const double outside_ms =
          residence.count > 0 ? *end_to_end_ms - residence.total_ms / residence.count : 0.0;
      if (outside_ms > 0) {
        out.push_back(CalibratedDemand{
            "net", sample, outside_ms, 1.0,
            fmt::format("mean response {:.3f} ms at the generator - refserver's residence {:.3f} ms",
                        *end_to_end_ms, residence.total_ms / residence.count),
            ""});
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("refserver stats: unexpected shape: ") + e.what());
  }
  return out;
}

}  // namespace wb
