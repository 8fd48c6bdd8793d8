// wbload --protocol rpc against the real refserver: rate accuracy at low load, a server stall
// visible in p99 (no coordinated omission), and the measured peak against refserver's analytic
// capacity (sut/capacity.hpp) for a few (threads, disks).
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include "child.hpp"
#include "sut/capacity.hpp"
#include "wbload_run.hpp"
#include "workloads/result.hpp"

using wbtest::Child;
using wbtest::kWbload;
using wbtest::run_wbload;

namespace {

const std::string kRefserver = std::string(WB_BINARY_DIR) + "/sut/refserver";

// Starts refserver on a kernel-chosen port and returns "127.0.0.1:<port>".
std::string start_refserver(Child& c) {
  std::string line = c.wait_line("ready ", 20);
  REQUIRE(!line.empty());
  return "127.0.0.1:" + line.substr(6);
}

std::vector<std::string> refserver_args(int threads, int disks, double cpu_ms, double disk_ms,
                                        std::vector<std::string> more = {}) {
  std::vector<std::string> a = {kRefserver,
                                "--port",
                                "0",
                                "--bind",
                                "127.0.0.1",
                                "--threads",
                                std::to_string(threads),
                                "--disks",
                                std::to_string(disks),
                                "--cpu-ms",
                                std::to_string(cpu_ms),
                                "--disk-ms",
                                std::to_string(disk_ms),
                                "--cpu-mode",
                                "sleep",
                                "--seed",
                                "7"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

}  // namespace

TEST_CASE("rpc: achieved rate within 1% of offered at low load", "[integration][rpc]") {
  Child server(refserver_args(4, 4, 0.2, 1.0), true);
  std::string target = start_refserver(server);
  for (std::string arrivals : {"constant", "poisson"}) {
    INFO(arrivals);
    auto r = run_wbload({"--protocol", "rpc", "--target", target, "--rate", "400", "--duration", "4",
                         "--warmup", "0.5", "--connections", "8", "--arrivals", arrivals, "--seed", "3"});
    CHECK(r.achieved_rate == Approx(400).epsilon(arrivals == "constant" ? 0.01 : 0.06));
    CHECK(r.completed == r.sent);
    CHECK(r.error_total() == 0);
    CHECK(r.timeouts == 0);
    // 1 ms disk + 0.2 ms CPU, far from saturation: the median is a few ms at most
    CHECK(r.histogram.percentile_ns(50) < 20'000'000);
  }
  // constant arrivals offer exactly rate x duration requests in the window
  auto r = run_wbload(
      {"--protocol", "rpc", "--target", target, "--rate", "250", "--duration", "2", "--connections", "4"});
  CHECK(r.sent == 500);
  CHECK(r.completed == 500);
}

// wbload busy-polls between events only while they come faster than its spin window (see
// Worker::Impl::loop in workloads/worker.cpp); at a low rate it must sleep between requests.
TEST_CASE("rpc: at a low rate wbload sleeps between requests instead of busy-polling", "[integration][rpc]") {
  Child server(refserver_args(4, 4, 0.2, 1.0), true);
  std::string target = start_refserver(server);
  rusage before{}, after{};
  getrusage(RUSAGE_CHILDREN, &before);  // wbload is the only child reaped in between
  auto r = run_wbload(
      {"--protocol", "rpc", "--target", target, "--rate", "400", "--duration", "3", "--connections", "8"});
  getrusage(RUSAGE_CHILDREN, &after);
  auto seconds = [](const rusage& u) {
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  };
  CHECK(r.completed == 1200);
  // 1,200 requests cost a few tens of ms; spinning through the 3 s would cost about 3 s
  CHECK(seconds(after) - seconds(before) < 0.6);
}

TEST_CASE("rpc: a refserver stall shows up in wbload's p99", "[integration][rpc]") {
  // Stalls of F = 0.5 s every E = 2 s: requests intended during a stall wait until its end, so
  // their latency is spread uniformly over (0, F]. Over a window of whole periods a fraction
  // F/E = 25% of the requests fall into stalls, so p99 is the 96th percentile of U(0, F]
  // (1% of all = 4% of the stalled ones): ≈ 0.96 × 0.5 s = 480 ms. A generator that waited for
  // each answer before sending the next (coordinated omission) would record ~one slow request
  // per stall and report a p99 of a few ms.
  Child server(refserver_args(4, 4, 0.1, 0.5, {"--stall-every", "2", "--stall-for", "0.5"}), true);
  std::string target = start_refserver(server);
  auto r =
      run_wbload({"--protocol", "rpc", "--target", target, "--rate", "400", "--duration", "6", "--warmup",
                  "1", "--connections", "8", "--max-connections", "400", "--intervals", "0.5"});
  double p99_ms = static_cast<double>(r.histogram.percentile_ns(99)) / 1e6;
  double p50_ms = static_cast<double>(r.histogram.percentile_ns(50)) / 1e6;
  INFO("p50 " << p50_ms << " ms, p99 " << p99_ms << " ms");
  CHECK(p99_ms > 380);
  CHECK(p99_ms < 560);
  CHECK(p50_ms < 50);  // three quarters of the time the server is quick
  CHECK(r.timeouts == 0);
  CHECK(r.error_total() == 0);
  CHECK(r.completed == r.sent);
  // The stalls are visible per interval too: with 0.5 s intervals each stall puts a max near F
  // into one or two intervals, and the 1.5 s between stalls hold at least two quiet intervals.
  REQUIRE(r.intervals.size() == 12);
  std::size_t stalled = 0, quiet = 0;
  for (const auto& i : r.intervals) {
    stalled += i.histogram.max_ns() > 300'000'000;
    quiet += i.histogram.max_ns() < 100'000'000;
  }
  CHECK(stalled >= 3);
  CHECK(stalled <= 6);
  CHECK(quiet >= 5);
}

TEST_CASE("rpc: measured peak within 15% of refserver's analytic capacity", "[integration][rpc]") {
  struct Case {
    int threads, disks;
  };
  // sleep mode, so capacity does not depend on this machine's cores; (2,4) is thread-bound with no
  // disk queueing (N <= D), (8,2) is disk-bound, (4,4) thread-bound.
  const double cpu_ms = 1.0, disk_ms = 4.0;
  for (Case c : {Case{2, 4}, Case{8, 2}, Case{4, 4}}) {
    wb::sut::CapacityInput in;
    in.threads = c.threads;
    in.disks = c.disks;
    in.cpu_ms = cpu_ms;
    in.disk_ms = disk_ms;  // the default mix reads randomly: no sequential share
    in.disk_fraction = 1.0;
    double lambda_max = wb::sut::capacity_bound(in).lambda_max;
    Child server(refserver_args(c.threads, c.disks, cpu_ms, disk_ms), true);
    std::string target = start_refserver(server);
    // Offer 40% more than the capacity, with enough connections to keep every thread busy; the
    // achieved rate (answers per second in the window) is then the server's throughput.
    auto r = run_wbload({"--protocol", "rpc", "--target", target, "--rate", std::to_string(1.4 * lambda_max),
                         "--duration", "4", "--warmup", "1", "--connections", "32", "--max-connections", "32",
                         "--timeout", "2"});
    INFO("threads " << c.threads << " disks " << c.disks << ": analytic " << lambda_max << " req/s, measured "
                    << r.achieved_rate);
    CHECK(r.achieved_rate == Approx(lambda_max).epsilon(0.15));
    CHECK(r.achieved_rate < 1.4 * lambda_max * 0.95);  // it really was saturated
  }
}

TEST_CASE("rpc: the pool grows up to --max-connections, and sends beyond it are late", "[integration][rpc]") {
  // One thread, one disk, 5 ms per request (1 ms CPU + 4 ms disk, deterministic): one connection
  // carries at most 200 req/s. 300 req/s fit only if the pool opens more connections.
  Child server(
      refserver_args(4, 4, 1.0, 4.0, {"--cpu-dist", "deterministic", "--disk-dist", "deterministic"}), true);
  std::string target = start_refserver(server);
  auto grown = run_wbload({"--protocol", "rpc", "--target", target, "--rate", "300", "--duration", "2",
                           "--connections", "1", "--max-connections", "8", "--late-ms", "20"});
  CHECK(grown.completed == 600);
  CHECK(grown.achieved_rate == Approx(300).epsilon(0.02));
  auto capped =
      run_wbload({"--protocol", "rpc", "--target", target, "--rate", "300", "--duration", "2",
                  "--connections", "1", "--max-connections", "1", "--late-ms", "20", "--timeout", "10"});
  // one connection: at most 200/s get through, the backlog grows, and almost every send is late
  CHECK(capped.achieved_rate < 210);
  CHECK(capped.achieved_rate > 150);
  CHECK(capped.late_sends > 400);
  CHECK(grown.late_sends * 4 < capped.late_sends);  // growing the pool is what kept sends on time
  // latency counts from the intended time, so the client-side backlog shows: the last requests
  // waited about (300 - 200) / 300 x 2 s ≈ 0.67 s for the connection
  CHECK(capped.histogram.max_ns() > 500'000'000);
}

TEST_CASE("rpc: requests unanswered within --timeout are counted as timeouts", "[integration][rpc]") {
  // Stalls of 1 s every 1.5 s; with --timeout 0.3 every request intended in the first ~0.7 s of
  // a stall times out, the others complete.
  Child server(refserver_args(4, 4, 0.1, 0.5, {"--stall-every", "1.5", "--stall-for", "1"}), true);
  std::string target = start_refserver(server);
  auto r = run_wbload({"--protocol", "rpc", "--target", target, "--rate", "200", "--duration", "3",
                       "--connections", "8", "--max-connections", "400", "--timeout", "0.3"});
  CHECK(r.timeouts > 100);  // ≈ 2 stalls x 0.7 s x 200/s = 280
  CHECK(r.timeouts < 450);
  CHECK(r.completed + r.timeouts + r.error_total() == 600);
  CHECK(r.histogram.max_ns() <= 300'000'000);  // nothing slower than the timeout is recorded
}

TEST_CASE("rpc: the four Table 3 mixes run against refserver without errors", "[integration][rpc]") {
  Child server(refserver_args(8, 4, 0.1, 0.5), true);
  std::string target = start_refserver(server);
  for (std::string mix : {"rpc_specsfs97.toml", "rpc_web.toml", "rpc_db_tp.toml", "rpc_mail.toml"}) {
    INFO(mix);
    auto r =
        run_wbload({"--protocol", "rpc", "--target", target, "--rate", "200", "--duration", "1",
                    "--connections", "8", "--mix", std::string(WB_SOURCE_DIR) + "/workloads/mixes/" + mix});
    CHECK(r.sent == 200);
    CHECK(r.completed == 200);
    CHECK(r.error_total() == 0);
    CHECK(r.timeouts == 0);
  }
}
