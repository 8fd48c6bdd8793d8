// refserver's fault flags, each shown against the same server without it where that matters.
#include <catch2/catch.hpp>
#include <thread>

#include "refserver_fixture.hpp"

using namespace wb::test;
using wb::rpc::Op;
using wb::rpc::Status;

TEST_CASE("refserver --slow-disk I:F makes disk I F times slower, the others unchanged", "[sut][faults]") {
  auto args = det("1", "2", "0", "10");
  args.insert(args.end(), {"--slow-disk", "1:4"});
  TestServer server(args);
  RpcClient c(server.port());
  // One request at a time: the pool hands out the longest-idle disk, so they alternate.
  for (int i = 0; i < 6; ++i) REQUIRE(c.call(Op::kRead, 10, i).status == Status::kOk);
  const nlohmann::json s = c.stats();
  const nlohmann::json& d0 = s.at("disks").at(0);
  const nlohmann::json& d1 = s.at("disks").at(1);
  CHECK(d0.at("ops") == 3);
  CHECK(d1.at("ops") == 3);
  const double fast = d0.at("mean_service_ms").get<double>();
  const double slow = d1.at("mean_service_ms").get<double>();
  CHECK(fast >= 10.0 - kEps);
  CHECK(fast < 15.0);
  CHECK(slow >= 40.0 - kEps);
  CHECK(slow < 48.0);
}

TEST_CASE("refserver --serialize-above N serializes requests that start above N busy threads",
          "[sut][faults]") {
  const bool fault = GENERATE(false, true);
  auto args = det("4", "4", "0", "150");
  if (fault) args.insert(args.end(), {"--serialize-above", "1"});
  TestServer server(args);
  RpcClient c(server.port());
  const auto t0 = Clock::now();
  std::vector<wb::rpc::Request> batch;
  for (std::uint64_t i = 0; i < 4; ++i) batch.push_back({Op::kRead, 0, 10, i});
  c.send_batch(batch);  // all four arrive together; four threads take them at once
  for (int i = 0; i < 4; ++i) REQUIRE(c.receive().status == Status::kOk);
  const double elapsed = ms_since(t0);
  const nlohmann::json s = c.stats();
  const double lock_total = stage(s, "read", "lock", "total_ms");
  if (fault) {
    // The first to start sees one busy thread and runs free; the other three hold the one lock
    // through their 150 ms disk service in turn: lock waits 0 + 150 + 300, less arrival skew.
    CHECK(elapsed >= 430.0 - kEps);
    CHECK(lock_total >= 430.0 - kEps);
    CHECK(lock_total <= 450.0 + kEps);
  } else {
    CHECK(elapsed < 300.0);
    CHECK(lock_total == 0.0);
  }
}

TEST_CASE("refserver --create-cost-ms makes writes slower as files accumulate", "[sut][faults]") {
  auto args = det("1", "1", "0", "0");
  args.insert(args.end(), {"--create-cost-ms", "1000"});  // 1 ms per file created before
  TestServer server(args);
  RpcClient c(server.port());
  for (int i = 0; i < 10; ++i) REQUIRE(c.call(Op::kWrite, 10, i).status == Status::kOk);
  for (int i = 0; i < 5; ++i) REQUIRE(c.call(Op::kMetadata, 0, i).status == Status::kOk);
  const nlohmann::json first = c.stats(true);
  CHECK(first.at("files_created") == 10);
  // Writes 0..9 pay 0..9 ms: mean 4.5, max 9.
  CHECK(stage(first, "write", "cpu") >= 4.5 - kEps);
  CHECK(stage(first, "write", "cpu") < 8.0);
  CHECK(stage(first, "write", "cpu", "max_ms") >= 9.0 - kEps);
  CHECK(stage(first, "metadata", "cpu") < 1.5);  // only writes create files
  for (int i = 0; i < 10; ++i) REQUIRE(c.call(Op::kWrite, 10, i).status == Status::kOk);
  const nlohmann::json second = c.stats();
  // Writes 10..19 pay 10..19 ms: mean 14.5.
  CHECK(stage(second, "write", "cpu") >= 14.5 - kEps);
  CHECK(stage(second, "write", "cpu") < 19.0);
  CHECK(second.at("files_created") == 20);
}

TEST_CASE("refserver --stall-every/--stall-for stops all workers periodically", "[sut][faults]") {
  auto args = det("4", "1", "0", "0");
  args.insert(args.end(), {"--stall-every", "1", "--stall-for", "0.4"});
  TestServer server(args);
  RpcClient c(server.port());
  // The windows count from the server's start; learn it (to within a round trip) from its uptime.
  const double uptime_ms = c.stats().at("uptime_s").get<double>() * 1000.0;
  const auto start = Clock::now() - std::chrono::microseconds(static_cast<long>(uptime_ms * 1000.0));
  struct Sample {
    double sent_ms;
    double latency_ms;
  };
  std::vector<Sample> samples;
  for (std::uint64_t id = 0; ms_since(start) < 1700; ++id) {
    const double sent = ms_since(start);
    const auto t = Clock::now();
    REQUIRE(c.call(Op::kMetadata, 0, id).id == id);
    samples.push_back({sent, ms_since(t)});
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  double max_latency = 0;
  for (const Sample& x : samples) {
    max_latency = std::max(max_latency, x.latency_ms);
    // Before the first window (1.0 s after start) and after it ends (1.4 s) nothing stalls.
    if (x.sent_ms < 900 || x.sent_ms > 1500) CHECK(x.latency_ms < 150.0);
  }
  CHECK(max_latency >= 300.0 - kEps);
  CHECK(max_latency < 500.0);
  const nlohmann::json s = c.stats();
  CHECK(stage(s, "metadata", "thread_queue", "max_ms") >= 300.0 - kEps);
}
