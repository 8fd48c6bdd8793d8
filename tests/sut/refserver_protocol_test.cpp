// refserver as a process: every op over the real protocol, malformed frames, the command line,
// signals. Each test starts its own server on a free loopback port.
#include <signal.h>

#include <catch2/catch.hpp>
#include <set>
#include <thread>

#include "refserver_fixture.hpp"

using namespace wb::test;
using wb::rpc::Op;
using wb::rpc::Status;

namespace {
const std::vector<std::string> kFast{"--threads", "2",         "--disks", "1",          "--cpu-ms",
                                     "0.1",       "--disk-ms", "1",       "--cpu-mode", "sleep"};
}

TEST_CASE("refserver answers every op with the request's id and the right sizes", "[sut][refserver]") {
  TestServer server(kFast);
  RpcClient c(server.port());
  Response r = c.call(Op::kNoop, 0, 1);
  CHECK(r.id == 1);
  CHECK(r.status == Status::kOk);
  CHECK(r.data.empty());

  for (std::uint32_t size : {0u, 1u, 4096u, 1000000u}) {
    r = c.call(Op::kRead, size, 100 + size);
    CHECK(r.id == 100 + size);
    CHECK(r.status == Status::kOk);
    CHECK(r.data.size() == size);
  }
  r = c.call(Op::kWrite, 70000, 0xfedcba9876543210ULL);
  CHECK(r.id == 0xfedcba9876543210ULL);
  CHECK(r.status == Status::kOk);
  CHECK(r.data.empty());
  r = c.call(Op::kMetadata, 0, 42);
  CHECK(r.id == 42);
  CHECK(r.status == Status::kOk);
  CHECK(r.data.empty());

  const nlohmann::json s = c.stats();
  CHECK(s.at("server") == "refserver");
  CHECK(s.at("ops").at("noop").at("count") == 1);
  CHECK(s.at("ops").at("read").at("count") == 4);
  CHECK(s.at("ops").at("write").at("count") == 1);
  CHECK(s.at("ops").at("metadata").at("count") == 1);
  CHECK(s.at("files_created") == 1);
  CHECK(s.at("config").at("threads") == 2);
  CHECK(s.at("disks").size() == 1);
  CHECK(s.at("disks").at(0).at("ops") == 5);
}

TEST_CASE("refserver answers pipelined requests on one connection, each id once", "[sut][refserver]") {
  const std::string io_threads = GENERATE("1", "3");
  TestServer server({"--threads", "4", "--disks", "2", "--cpu-ms", "1", "--disk-ms", "2", "--cpu-mode",
                     "sleep", "--io-threads", io_threads});
  RpcClient c(server.port());
  std::set<std::uint64_t> sent;
  for (std::uint64_t id = 1; id <= 60; ++id) {
    const Op op = id % 3 == 0 ? Op::kRead : id % 3 == 1 ? Op::kWrite : Op::kMetadata;
    c.send(op, static_cast<std::uint32_t>(id * 10), id);
    sent.insert(id);
  }
  std::set<std::uint64_t> got;
  for (int i = 0; i < 60; ++i) {
    const Response r = c.receive();
    CHECK(r.status == Status::kOk);
    CHECK(r.data.size() == (r.id % 3 == 0 ? r.id * 10 : 0));
    CHECK(got.insert(r.id).second);
  }
  CHECK(got == sent);
  // The same from several connections at once (with 3 io threads they are served in parallel).
  std::vector<std::unique_ptr<RpcClient>> more;
  more.reserve(4);
  for (int k = 0; k < 4; ++k) more.push_back(std::make_unique<RpcClient>(server.port()));
  for (int k = 0; k < 4; ++k)
    for (std::uint64_t id = 1; id <= 10; ++id) more[k]->send(Op::kRead, 100, id * 10 + k);
  for (int k = 0; k < 4; ++k) {
    std::set<std::uint64_t> ids;
    for (int i = 0; i < 10; ++i) {
      const Response r = more[k]->receive();
      CHECK(r.data.size() == 100);
      CHECK(r.id % 10 == static_cast<std::uint64_t>(k));
      ids.insert(r.id);
    }
    CHECK(ids.size() == 10);
  }
}

TEST_CASE("refserver decodes frames split across reads and large writes between small requests",
          "[sut][refserver]") {
  TestServer server(kFast);
  RpcClient c(server.port());
  std::vector<std::uint8_t> bytes;
  const auto add = [&](Op op, std::uint32_t size, std::uint64_t id) {
    wb::rpc::Request r;
    r.op = op;
    r.size = size;
    r.id = id;
    const auto head = wb::rpc::encode_request(r);
    bytes.insert(bytes.end(), head.begin(), head.end());
    if (op == Op::kWrite) bytes.resize(bytes.size() + size, 0x5a);
  };
  add(Op::kNoop, 0, 1);
  add(Op::kWrite, 300, 2);
  add(Op::kRead, 20, 3);
  // Seven bytes at a time, so lengths, bodies and write data are all cut.
  for (std::size_t off = 0; off < bytes.size(); off += 7) {
    c.send_raw({bytes.begin() + static_cast<std::ptrdiff_t>(off),
                bytes.begin() + static_cast<std::ptrdiff_t>(std::min(off + 7, bytes.size()))});
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::set<std::uint64_t> ids;
  for (int i = 0; i < 3; ++i) {
    const Response r = c.receive();
    CHECK(r.status == Status::kOk);
    CHECK(r.data.size() == (r.id == 3 ? 20u : 0u));
    ids.insert(r.id);
  }
  CHECK(ids == std::set<std::uint64_t>{1, 2, 3});
  // A 5 MB write grows the connection's buffer, the requests after it still decode.
  bytes.clear();
  add(Op::kWrite, 5u << 20, 10);
  add(Op::kMetadata, 0, 11);
  add(Op::kWrite, 10, 12);
  c.send_raw(bytes);
  ids.clear();
  for (int i = 0; i < 3; ++i) {
    const Response r = c.receive();
    CHECK(r.status == Status::kOk);
    ids.insert(r.id);
  }
  CHECK(ids == std::set<std::uint64_t>{10, 11, 12});
  CHECK(c.call(Op::kRead, 3, 13).data.size() == 3);
}

TEST_CASE("refserver rejects malformed requests", "[sut][refserver]") {
  TestServer server(kFast);
  SECTION("an unknown op gets BadRequest and the connection goes on") {
    RpcClient c(server.port());
    std::vector<std::uint8_t> frame(4 + wb::rpc::kRequestBodySize, 0);
    wb::rpc::put_u32(frame.data(), wb::rpc::kRequestBodySize);
    frame[4] = 9;
    wb::rpc::put_u64(frame.data() + 12, 77);
    c.send_raw(frame);
    Response r = c.receive();
    CHECK(r.id == 77);
    CHECK(r.status == Status::kBadRequest);
    CHECK(r.data.find("unknown op") != std::string::npos);
    r = c.call(Op::kNoop, 0, 78);
    CHECK(r.status == Status::kOk);
    CHECK(c.stats().at("bad_requests") == 1);
  }
  SECTION("a write whose frame does not carry `size` bytes gets BadRequest") {
    RpcClient c(server.port());
    wb::rpc::Request w;
    w.op = Op::kWrite;
    w.size = 100;
    w.id = 5;
    auto head = wb::rpc::encode_request(w);
    wb::rpc::put_u32(head.data(), wb::rpc::kRequestBodySize + 10);  // only 10 bytes of data
    std::vector<std::uint8_t> frame(head.begin(), head.end());
    frame.resize(frame.size() + 10);
    c.send_raw(frame);
    const Response r = c.receive();
    CHECK(r.id == 5);
    CHECK(r.status == Status::kBadRequest);
    CHECK(c.call(Op::kMetadata, 0, 6).status == Status::kOk);
  }
  SECTION("a frame shorter than a request closes the connection, the server lives on") {
    RpcClient c(server.port());
    c.send_raw({0, 0, 0, 3, 1, 2, 3});
    CHECK(c.closed_by_peer());
    RpcClient c2(server.port());
    CHECK(c2.call(Op::kNoop, 0, 1).status == Status::kOk);
  }
  SECTION("a frame longer than kMaxFrame closes the connection") {
    RpcClient c(server.port());
    c.send_raw({0xff, 0xff, 0xff, 0xff});
    CHECK(c.closed_by_peer());
  }
  SECTION("a read larger than a response frame can carry gets BadRequest") {
    RpcClient c(server.port());
    const Response r = c.call(Op::kRead, wb::rpc::kMaxFrame, 9);
    CHECK(r.status == Status::kBadRequest);
  }
}

TEST_CASE("refserver stats reset zeroes counters but not files_created", "[sut][refserver]") {
  TestServer server(kFast);
  RpcClient c(server.port());
  for (int i = 0; i < 3; ++i) REQUIRE(c.call(Op::kWrite, 10, i).status == Status::kOk);
  const nlohmann::json before = c.stats(true);
  CHECK(before.at("ops").at("write").at("count") == 3);
  const nlohmann::json after = c.stats();
  CHECK(after.at("ops").at("write").at("count") == 0);
  CHECK(after.at("disks").at(0).at("ops") == 0);
  CHECK(stage(after, "write", "disk", "total_ms") == 0.0);
  CHECK(after.at("files_created") == 3);
  // The interval restarted at the reset, which came after the first snapshot.
  const double reset_at = after.at("uptime_s").get<double>() - after.at("interval_s").get<double>();
  CHECK(reset_at >= before.at("uptime_s").get<double>() - 1e-9);
  CHECK(after.at("interval_s").get<double>() < after.at("uptime_s").get<double>());
}

TEST_CASE("refserver exits 0 promptly on SIGTERM and SIGINT, even with requests in service",
          "[sut][refserver]") {
  const int sig = GENERATE(SIGTERM, SIGINT);
  TestServer server({"--threads", "2", "--disks", "1", "--disk-ms", "20000", "--disk-dist", "deterministic",
                     "--cpu-mode", "sleep"});
  RpcClient c(server.port());
  c.send(Op::kRead, 10, 1);
  c.send(Op::kRead, 10, 2);  // waits for the disk
  c.send(Op::kRead, 10, 3);  // waits for a thread
  CHECK(c.call(Op::kNoop, 0, 4).id == 4);
  const auto t0 = Clock::now();
  server.process().send_signal(sig);
  const auto code = server.process().wait_exit(std::chrono::seconds(5));
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  CHECK(ms_since(t0) < 2000);
}

TEST_CASE("refserver rejects bad arguments with exit 2 and one line on stderr", "[sut][refserver][cli]") {
  using V = std::vector<std::string>;
  const V bad =
      GENERATE(V{"--port", "0", "--threads", "2"},                      // --disks missing
               V{"--port", "0", "--threads", "0", "--disks", "1"},      // threads < 1
               V{"--port", "70000", "--threads", "1", "--disks", "1"},  // port range
               V{"--port", "0", "--threads", "x", "--disks", "1"},      // not a number
               V{"--port", "0", "--threads", "1", "--disks", "1", "--cpu-dist", "pareto"},
               V{"--port", "0", "--threads", "1", "--disks", "1", "--cpu-mode", "yield"},
               V{"--port", "0", "--threads", "1", "--disks", "2", "--slow-disk", "2:3"},
               V{"--port", "0", "--threads", "1", "--disks", "2", "--slow-disk", "1"},
               V{"--port", "0", "--threads", "1", "--disks", "1", "--stall-for", "1"},
               V{"--port", "0", "--threads", "1", "--disks", "1", "--stall-every", "1", "--stall-for", "2"},
               V{"--port", "0", "--threads", "1", "--disks", "1", "--disk-ms", "-1"},
               V{"--port", "0", "--threads", "1", "--disks", "1", "--seed", "-4"},
               V{"--port", "0", "--threads", "1", "--disks", "1", "--bind", "nowhere"},
               V{"--port", "0", "--threads", "1", "--disks", "1", "--frobnicate"});
  V argv{refserver_path()};
  argv.insert(argv.end(), bad.begin(), bad.end());
  const RunResult r = run_to_exit(argv, std::chrono::seconds(10));
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  REQUIRE(!r.err.empty());
  CHECK(r.err.find('\n') == r.err.size() - 1);
  CHECK(r.err.rfind("refserver: ", 0) == 0);
}

TEST_CASE("refserver --version and --help", "[sut][refserver][cli]") {
  RunResult r = run_to_exit({refserver_path(), "--version"}, std::chrono::seconds(10));
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("refserver ", 0) == 0);
  CHECK(r.out.find('\n') == r.out.size() - 1);
  r = run_to_exit({refserver_path(), "--help"}, std::chrono::seconds(10));
  CHECK(r.exit_code == 0);
  for (const char* flag : {"--threads", "--disks", "--cpu-mode", "--disk-dist", "--seq-factor", "--slow-disk",
                           "--serialize-above", "--create-cost-ms", "--stall-every", "--stall-for", "--seed"})
    CHECK(r.out.find(flag) != std::string::npos);
}

TEST_CASE("refserver on a port in use exits 1", "[sut][refserver][cli]") {
  TestServer first(kFast);
  std::vector<std::string> argv{refserver_path(), "--port", std::to_string(first.port()), "--bind",
                                "127.0.0.1"};
  argv.insert(argv.end(), kFast.begin(), kFast.end());
  const RunResult r = run_to_exit(argv, std::chrono::seconds(10));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("cannot listen") != std::string::npos);
}

TEST_CASE("refserver with an explicit port prints ready <port>", "[sut][refserver][cli]") {
  // Learn a free port from a first server, stop it, then ask for that port explicitly.
  int port = 0;
  {
    TestServer probe(kFast);
    port = probe.port();
    probe.process().send_signal(SIGTERM);
    REQUIRE(probe.process().wait_exit(std::chrono::seconds(5)) == 0);
  }
  std::vector<std::string> argv{refserver_path(), "--port", std::to_string(port), "--bind", "127.0.0.1"};
  argv.insert(argv.end(), kFast.begin(), kFast.end());
  ChildProcess child(argv);
  const auto line = child.read_stdout_line(std::chrono::seconds(20));
  REQUIRE(line.has_value());
  CHECK(*line == "ready " + std::to_string(port));
  RpcClient c(port);
  CHECK(c.call(Op::kNoop, 0, 3).id == 3);
}

TEST_CASE("refserver survives clients that close with replies in flight, then exits 0", "[sut][refserver]") {
  TestServer server(
      {"--threads", "4", "--disks", "2", "--cpu-ms", "0.5", "--disk-ms", "2", "--cpu-mode", "sleep"});
  for (int k = 0; k < 40; ++k) {
    RpcClient c(server.port());
    std::vector<wb::rpc::Request> batch;
    for (std::uint64_t id = 0; id < 20; ++id)
      batch.push_back({id % 3 == 0   ? Op::kRead
                       : id % 3 == 1 ? Op::kWrite
                                     : Op::kMetadata,
                       0, static_cast<std::uint32_t>(200000 * (id % 3 == 0)), id});
    c.send_batch(batch);
    if (k % 2) c.receive();  // half of them read one reply first
  }                          // every client closes here, most replies still owed
  RpcClient c(server.port());
  CHECK(c.call(Op::kRead, 5000, 1).data.size() == 5000);
  // The server finishes the owed work even though nobody reads the replies; each is counted once.
  const auto served = [&] {
    const nlohmann::json ops = c.stats().at("ops");
    return ops.at("read").at("count").get<int>() + ops.at("write").at("count").get<int>() +
           ops.at("metadata").at("count").get<int>();
  };
  for (int i = 0; i < 250 && served() < 40 * 20 + 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(served() == 40 * 20 + 1);
  server.process().send_signal(SIGTERM);
  CHECK(server.process().wait_exit(std::chrono::seconds(5)) == 0);
  CHECK(server.process().drain_stderr().empty());
}
