// Closed-loop saturation check: many clients, each with one request outstanding and no think
// time, for two seconds against the real refserver (cpu-mode sleep, deterministic service);
// the measured throughput must be within 15% of sut/capacity.hpp's bound, and not above it.
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "refserver_fixture.hpp"
#include "sut/capacity.hpp"

using namespace wb::test;
using wb::rpc::Op;
using wb::rpc::Status;

namespace {

// Runs `clients` closed loops for `warmup` then `measure`; returns completions/s in `measure`.
// Request i of a client is a read or write with probability disk_share (by a fixed pattern),
// otherwise a metadata request.
double closed_loop_throughput(int port, int clients, double disk_share, std::chrono::milliseconds warmup,
                              std::chrono::milliseconds measure) {
  std::atomic<bool> counting{false};
  std::atomic<bool> done{false};
  std::atomic<long> completed{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(clients));
  for (int k = 0; k < clients; ++k) {
    threads.emplace_back([&, k] {
      try {
        RpcClient c(port);
        double acc = 0.5 * k / clients;  // spread the pattern's phase over clients
        for (std::uint64_t id = 0; !done.load(); ++id) {
          acc += disk_share;
          Op op = Op::kMetadata;
          if (acc >= 1.0) {
            acc -= 1.0;
            op = id % 2 ? Op::kRead : Op::kWrite;
          }
          const Response r = c.call(op, 64, id);
          if (r.status != Status::kOk || r.id != id) ++failures;
          if (counting.load()) ++completed;
        }
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  std::this_thread::sleep_for(warmup);
  counting = true;
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(measure);
  counting = false;
  const double seconds = ms_since(t0) / 1000.0;
  done = true;
  for (std::thread& t : threads) t.join();
  REQUIRE(failures.load() == 0);
  return static_cast<double>(completed.load()) / seconds;
}

}  // namespace

TEST_CASE("refserver saturates at sut/capacity.hpp's bound (closed loop, cpu-mode sleep)",
          "[sut][capacity]") {
  struct Setting {
    int threads, disks;
    double cpu_ms, disk_ms, disk_share;
    wb::sut::Bottleneck expect;
  };
  const Setting st = GENERATE(Setting{4, 8, 4, 16, 1.0, wb::sut::Bottleneck::kThreads},  // N <= D
                              Setting{16, 2, 2, 10, 1.0, wb::sut::Bottleneck::kDisks},   // disks busy
                              Setting{8, 1, 4, 10, 0.5, wb::sut::Bottleneck::kDisks});   // mixed ops
  wb::sut::CapacityInput in;
  in.threads = st.threads;
  in.disks = st.disks;
  in.cpu_ms = st.cpu_ms;
  in.disk_ms = st.disk_ms;
  in.disk_fraction = st.disk_share;
  const wb::sut::CapacityBound bound = wb::sut::capacity_bound(in);
  REQUIRE(bound.bottleneck == st.expect);

  TestServer server({"--threads", std::to_string(st.threads), "--disks", std::to_string(st.disks), "--cpu-ms",
                     std::to_string(st.cpu_ms), "--cpu-dist", "deterministic", "--disk-ms",
                     std::to_string(st.disk_ms), "--disk-dist", "deterministic", "--cpu-mode", "sleep"});
  const int clients = 2 * st.threads + 8;
  const double x = closed_loop_throughput(server.port(), clients, st.disk_share,
                                          std::chrono::milliseconds(300), std::chrono::milliseconds(2000));
  INFO("threads " << st.threads << " disks " << st.disks << ": measured " << x << "/s, bound "
                  << bound.lambda_max << "/s");
  CHECK(x >= 0.85 * bound.lambda_max);
  CHECK(x <= 1.03 * bound.lambda_max);
}

TEST_CASE("refserver's peak has the shape of [003 Fig. 2]: disks help only with enough threads",
          "[sut][capacity]") {
  // cpu 2 ms, disk 10 ms, reads only: one thread is bound at 1/12 ms whatever the disks; eight
  // threads are bound by the disks (D / 10 ms) until D reaches 8 * 10 / 12.
  const auto peak = [](int threads, int disks) {
    TestServer server({"--threads", std::to_string(threads), "--disks", std::to_string(disks), "--cpu-ms",
                       "2", "--cpu-dist", "deterministic", "--disk-ms", "10", "--disk-dist", "deterministic",
                       "--cpu-mode", "sleep"});
    return closed_loop_throughput(server.port(), 2 * threads + 8, 1.0, std::chrono::milliseconds(200),
                                  std::chrono::milliseconds(1000));
  };
  const double one_thread_one_disk = peak(1, 1);
  const double one_thread_four_disks = peak(1, 4);
  const double eight_threads_one_disk = peak(8, 1);
  const double eight_threads_four_disks = peak(8, 4);
  INFO("X(1,1)=" << one_thread_one_disk << " X(1,4)=" << one_thread_four_disks
                 << " X(8,1)=" << eight_threads_one_disk << " X(8,4)=" << eight_threads_four_disks);
  CHECK(one_thread_four_disks / one_thread_one_disk == Approx(1.0).epsilon(0.1));
  CHECK(eight_threads_four_disks / eight_threads_one_disk == Approx(4.0).epsilon(0.1));
  CHECK(one_thread_one_disk == Approx(1000.0 / 12).epsilon(0.15));
  CHECK(eight_threads_four_disks == Approx(400.0).epsilon(0.15));
}
