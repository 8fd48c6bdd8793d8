// refserver's per-stage times and its queueing structure, observed over the real protocol.
// Sleeps never end early, so lower bounds are tight; upper bounds leave room for a loaded host.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

#include "refserver_fixture.hpp"

using namespace wb::test;
using wb::rpc::Op;
using wb::rpc::Status;

TEST_CASE("refserver stats: deterministic 20 ms disk gives mean disk service of 20 ms", "[sut][stages]") {
  TestServer server(det("2", "1", "0", "20"));
  RpcClient c(server.port());
  for (int i = 0; i < 5; ++i) REQUIRE(c.call(Op::kRead, 100, i).status == Status::kOk);
  const nlohmann::json s = c.stats();
  CHECK(s.at("ops").at("read").at("count") == 5);
  const double disk = stage(s, "read", "disk");
  CHECK(disk >= 20.0 - kEps);
  CHECK(disk < 26.0);
  CHECK(stage(s, "read", "disk_queue") < 2.0);  // one request at a time: nobody queues
  CHECK(stage(s, "read", "thread_queue") < 2.0);
  // residence is real time and the worker sleeps until each emulated deadline, so it covers
  // every emulated stage; lag is the difference.
  const double emulated =
      stage(s, "read", "thread_queue") + stage(s, "read", "cpu") + stage(s, "read", "disk_queue") + disk;
  CHECK(stage(s, "read", "residence") >= emulated - kEps);
  CHECK(stage(s, "read", "lag") >= 0.0);
  CHECK(stage(s, "read", "lag") <= stage(s, "read", "residence") - emulated + 0.01);
  const nlohmann::json& d0 = s.at("disks").at(0);
  CHECK(d0.at("ops") == 5);
  CHECK(d0.at("busy_ms").get<double>() >= 100.0 - kEps);
  CHECK(d0.at("mean_service_ms").get<double>() == Approx(disk).epsilon(1e-9));
  CHECK(d0.at("utilization").get<double>() > 0.0);
  CHECK(d0.at("utilization").get<double>() <= 1.0);
}

namespace {
// User + system CPU time the process has used so far, ms (from /proc/<pid>/stat).
double process_cpu_ms(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(text.substr(text.rfind(')') + 2));  // fields after "(comm) "
  std::string field;
  double utime = 0;
  double stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}
}  // namespace

TEST_CASE("refserver stats: spin mode burns the CPU time, sleep mode does not — metadata has no disk stage",
          "[sut][stages]") {
  const std::string mode = GENERATE("spin", "sleep");
  TestServer server({"--threads", "1", "--disks", "1", "--cpu-ms", "25", "--cpu-dist", "deterministic",
                     "--cpu-mode", mode});
  RpcClient c(server.port());
  const double cpu_before = process_cpu_ms(server.process().pid());
  for (int i = 0; i < 8; ++i) REQUIRE(c.call(Op::kMetadata, 0, i).status == Status::kOk);
  const double burnt = process_cpu_ms(server.process().pid()) - cpu_before;
  const nlohmann::json s = c.stats();
  INFO("process CPU time for 8 x 25 ms: " << burnt << " ms");
  CHECK(stage(s, "metadata", "cpu") >= 25.0 - kEps);
  if (mode == "spin") {
    CHECK(burnt >= 180.0 - kEps);  // 200 ms of thread CPU time, in clock ticks
  } else {
    CHECK(burnt < 100.0);
    CHECK(stage(s, "metadata", "cpu") < 35.0);
  }
  CHECK(stage(s, "metadata", "disk") == 0.0);
  CHECK(stage(s, "metadata", "disk_queue") == 0.0);
  CHECK(s.at("disks").at(0).at("ops") == 0);
}

TEST_CASE("refserver: with 1 thread the second request's thread-queue wait is the first's service",
          "[sut][stages]") {
  TestServer server(det("1", "2", "0", "200"));
  RpcClient c(server.port());
  c.send_batch({{Op::kRead, 0, 10, 1}, {Op::kRead, 0, 10, 2}});
  REQUIRE(c.receive().status == Status::kOk);
  REQUIRE(c.receive().status == Status::kOk);
  const nlohmann::json s = c.stats();
  const double max_wait = stage(s, "read", "thread_queue", "max_ms");
  // The other's disk time, less the skew between the two arrivals (both frames come in one
  // segment, but the io thread may be preempted between them on a loaded host).
  CHECK(max_wait >= 185.0 - kEps);
  CHECK(max_wait <= 200.0 + kEps);
  CHECK(stage(s, "read", "disk_queue", "max_ms") < 2.0);  // two disks, one thread: no disk queue
}

TEST_CASE("refserver: one disk serializes disk operations, two disks overlap them", "[sut][stages]") {
  const int disks = GENERATE(1, 2);
  TestServer server(det("4", std::to_string(disks), "0", "200"));
  RpcClient a(server.port());
  const auto t0 = Clock::now();
  a.send_batch({{Op::kRead, 0, 10, 1}, {Op::kWrite, 0, 10, 2}});
  std::set<std::uint64_t> ids{a.receive().id, a.receive().id};
  REQUIRE(ids == std::set<std::uint64_t>{1, 2});
  const double elapsed = ms_since(t0);
  const nlohmann::json s = a.stats();
  const double queued =
      std::max(stage(s, "read", "disk_queue", "max_ms"), stage(s, "write", "disk_queue", "max_ms"));
  if (disks == 1) {
    CHECK(elapsed >= 385.0 - kEps);
    CHECK(queued >= 185.0 - kEps);  // less the arrival skew
    CHECK(queued <= 200.0 + kEps);
  } else {
    CHECK(elapsed < 350.0);
    CHECK(queued == 0.0);
  }
}

TEST_CASE("refserver: --threads bounds the requests in service — the rest wait in the thread queue",
          "[sut][stages]") {
  TestServer server(det("2", "8", "0", "400"));
  RpcClient c(server.port());
  for (std::uint64_t id = 1; id <= 6; ++id) c.send(Op::kRead, 10, id);
  RpcClient observer(server.port());
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  const nlohmann::json now = observer.stats().at("now");
  CHECK(now.at("busy_threads") == 2);
  CHECK(now.at("thread_queue_length") == 4);
  CHECK(now.at("disk_queue_length") == 0);
  for (int i = 0; i < 6; ++i) REQUIRE(c.receive().status == Status::kOk);
  const nlohmann::json s = observer.stats();
  // The last pair waited two rounds, less the arrival skew.
  CHECK(stage(s, "read", "thread_queue", "max_ms") >= 770.0 - kEps);
  CHECK(stage(s, "read", "thread_queue", "max_ms") <= 800.0 + kEps);
}

TEST_CASE("refserver: sequential disk operations cost --seq-factor of a random one", "[sut][stages]") {
  auto args = det("1", "1", "0", "40");
  args.insert(args.end(), {"--seq-factor", "0.25"});
  TestServer server(args);
  RpcClient c(server.port());
  for (int i = 0; i < 3; ++i)
    REQUIRE(c.call(Op::kRead, 10, i, wb::rpc::kFlagSequential).status == Status::kOk);
  const double seq = stage(c.stats(true), "read", "disk");
  for (int i = 0; i < 3; ++i) REQUIRE(c.call(Op::kRead, 10, i).status == Status::kOk);
  const double random = stage(c.stats(), "read", "disk");
  CHECK(seq >= 10.0 - kEps);
  CHECK(seq < 16.0);
  CHECK(random >= 40.0 - kEps);
  CHECK(random < 48.0);
}

TEST_CASE("refserver: exponential service times average to their mean", "[sut][stages]") {
  TestServer server({"--threads", "4", "--disks", "4", "--cpu-ms", "0", "--disk-ms", "4", "--disk-dist",
                     "exponential", "--cpu-mode", "sleep", "--seed", "11"});
  RpcClient c(server.port());
  // 400 reads, 4 outstanding at a time on one connection.
  std::uint64_t next = 0;
  for (; next < 4; ++next) c.send(Op::kRead, 1, next);
  for (int done = 0; done < 400; ++done) {
    REQUIRE(c.receive().status == Status::kOk);
    if (next < 400) c.send(Op::kRead, 1, next++);
  }
  const nlohmann::json s = c.stats();
  CHECK(s.at("ops").at("read").at("count") == 400);
  // Mean of 400 exponential draws: standard error 5%; plus timer overshoot.
  CHECK(stage(s, "read", "disk") > 4.0 * 0.8);
  CHECK(stage(s, "read", "disk") < 4.0 * 1.3);
  CHECK(stage(s, "read", "disk", "max_ms") > 4.0 * 3);  // a deterministic 4 ms would never get here
}

TEST_CASE("refserver --cache-mb: a read of resident blocks skips the disk, and stats count the hits",
          "[sut][stages]") {
  std::vector<std::string> args = det("2", "1", "0", "20");
  args.insert(args.end(), {"--cache-mb", "1", "--cache-block-kb", "4"});
  TestServer server(args);
  RpcClient c(server.port());
  auto read = [&](std::uint64_t file, std::uint64_t offset, std::uint32_t size, std::uint64_t id) {
    wb::rpc::Request r;
    r.op = Op::kRead;
    r.size = size;
    r.id = id;
    r.file = file;
    r.offset = offset;
    c.send_batch({r});
    auto t0 = Clock::now();
    REQUIRE(c.receive().status == Status::kOk);
    return ms_since(t0);
  };
  CHECK(read(3, 8192, 8192, 1) >= 20.0 - kEps);   // cold: the disk
  CHECK(read(3, 8192, 8192, 2) < 15.0);           // both blocks resident: no disk stage
  CHECK(read(4, 8192, 4096, 3) >= 20.0 - kEps);   // another file
  CHECK(read(3, 12288, 8192, 4) >= 20.0 - kEps);  // block 4 of file 3 was never read
  const nlohmann::json s = c.stats();
  const nlohmann::json& cache = s.at("cache");
  CHECK(cache.at("reads") == 4);
  CHECK(cache.at("read_hits") == 1);
  CHECK(cache.at("capacity_blocks") == 256);
  CHECK(s.at("config").at("cache_policy") == "lru");
  CHECK(s.at("disks").at(0).at("ops") == 3);
}
