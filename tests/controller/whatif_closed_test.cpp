// `workbench whatif` at the edges of its analysis, through the real binary: closed workloads
// against Jain's Table 34.1, two billion servers, and Ctrl-C while it computes.
#include <catch2/catch.hpp>

#include <csignal>

#include "tests/controller/whatif_cli_support.hpp"

using namespace wb::test::whatif_cli;
using wb::test::run_to_exit;

namespace {

// R. Jain, The Art of Computer Systems Performance Analysis, Wiley 1991, Example 34.2 (§34.2):
// a timesharing system, CPU S = 0.125 s, V = 16; disk A S = 0.3 s, V = 10; disk B S = 0.2 s,
// V = 5; think time Z = 4 s. Table 34.1 prints the exact MVA per population; its N = 20 row is
// confirmed by the test of qncsmva in M. Marzolla's Octave queueing package (inst/qncsmva.m, "p. 577
// Jain"), see tests/models/mva_test.cpp. Here as a [model] in ms.
const char* kJainConfig = R"(
[testbed]
name = "jain-34"

[peak]
r_sat_ms = 60000
width = 0.1

[[model.center]]
name = "cpu"
service_ms = 125
visits = 16

[[model.center]]
name = "disk_a"
service_ms = 300
visits = 10

[[model.center]]
name = "disk_b"
service_ms = 200
visits = 5
)";

// A value printed rounded to `decimals` places: |computed − printed| <= half a unit of the last.
bool matches_printed(double computed, double printed, int decimals) {
  return std::abs(computed - printed) <= 0.5 * std::pow(10.0, -decimals) + 1e-12;
}

const json& center_named(const json& centers, const std::string& name) {
  for (const auto& c : centers) {
    if (c["name"] == name) return c;
  }
  FAIL("no center " << name);
  return centers;
}

}  // namespace

TEST_CASE("closed-workload --explain and JSON report the closed solution: Jain 1991 Table 34.1") {
  fs::path dir = fresh_dir("jain");
  std::ofstream(dir / "jain.toml") << kJainConfig;
  const std::string config = (dir / "jain.toml").string(), store = (dir / "w.db").string();
  // Rows of Table 34.1: N; per-visit response (s) of CPU, A, B; system response R (s);
  // throughput X (/s); mean queue length of CPU, A, B.
  const double table[][9] = {
      {1, 0.125, 0.300, 0.200, 6.000, 0.100, 0.200, 0.300, 0.100},
      {20, 0.373, 4.854, 0.300, 56.016, 0.333, 1.991, 16.177, 0.500},
  };
  const char* names[] = {"cpu", "disk_a", "disk_b"};
  const double demand_ms[] = {2000, 3000, 1000};
  for (const auto& row : table) {
    const std::string n = std::to_string(static_cast<int>(row[0]));
    INFO("N = " << n);
    json w = run_json({"whatif", "--config", config, "--store", store, "--clients", n, "--think", "4000",
                       "--metric", "throughput", "--explain", "--json"});
    const json& closed = w["closed"];
    CHECK(closed["clients"] == static_cast<int>(row[0]));
    CHECK(closed["think_ms"].get<double>() == 4000);
    const double x = closed["throughput"].get<double>();  // requests/s
    CHECK(matches_printed(x, row[5], 3));
    CHECK(matches_printed(closed["response_ms"].get<double>() / 1000, row[4], 3));
    CHECK(w["answers"][0]["value"].get<double>() == Approx(x).epsilon(1e-12));
    CHECK(w["bottleneck"] == "disk_a");  // the largest demand, and the highest utilization
    CHECK_FALSE(w.contains("at_rate"));  // nothing in it is solved at an open rate
    for (int k = 0; k < 3; ++k) {
      INFO(names[k]);
      const json& c = center_named(w["centers"], names[k]);
      CHECK(matches_printed(c["response_per_visit_ms"].get<double>() / 1000, row[1 + k], 3));
      CHECK(c["response_per_visit_ms"].get<double>() ==
            Approx(c["response_ms"].get<double>() / c["visits"].get<double>()));
      CHECK(matches_printed(c["queue_length"].get<double>(), row[6 + k], 3));
      // Utilization law U = X·D, with X per ms.
      CHECK(c["utilization"].get<double>() == Approx(x / 1000 * demand_ms[k]).epsilon(1e-12));
    }
  }
  // The text table: the bottleneck, and each center's figures of the N = 20 row.
  auto text = workbench({"whatif", "--config", config, "--store", store, "--clients", "20", "--think", "4000",
                         "--metric", "response", "--explain"});
  INFO(text.out);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("the bottleneck is disk_a"));
  CHECK_THAT(text.out, Catch::Contains("R = N/X − Z = 56015.632 ms"));
  CHECK_THAT(text.out, Catch::Matches("[^]*cpu +1 +16.000 +2000.000 +0.666 +1.991 +5973.426 +373.339[^]*"));
  CHECK_THAT(text.out,
             Catch::Matches("[^]*disk_a +1 +10.000 +3000.000 +1.000 +16.177 +48542.597 +4854.260[^]*"));
  CHECK_THAT(text.out, Catch::Matches("[^]*disk_b +1 +5.000 +1000.000 +0.333 +0.500 +1499.609 +299.922[^]*"));
  fs::remove_all(dir);
}

TEST_CASE("whatif with two billion servers answers at once, the center a delay") {
  // A center of 2e9 servers next to one disk: Erlang B/C over every server took 609 s. Its
  // requests never wait, so R(λ) = 1 ms + 5/(1 − 5λ) ms (M/M/1 disk, λ per ms) and λ* at
  // R_sat = 40 ms is (1 − 5/39)/5 per ms; a closed workload saturates the disk at 200/s.
  fs::path dir = fresh_dir("billions");
  std::ofstream(dir / "big.toml") << R"(
[testbed]
name = "billions"

[peak]
r_sat_ms = 40
width = 0.1

[[model.center]]
name = "farm"
servers = 2000000000
service_ms = 1

[[model.center]]
name = "disk"
service_ms = 5
)";
  const std::string config = (dir / "big.toml").string(), store = (dir / "w.db").string();
  auto timed = [&](std::vector<std::string> args) {
    args.insert(args.begin(), kWorkbench);
    return run_to_exit(args, 10s);  // a hang fails here; bench/whatif/analysis.sh times it
  };
  auto open = timed({"whatif", "--config", config, "--store", store, "--json"});
  INFO(open.err);
  REQUIRE(open.exit_code == 0);
  json o = json::parse(open.out);
  CHECK(o["answers"][0]["value"].get<double>() == Approx((1 - 5 / 39.0) / 5 * 1000).epsilon(1e-9));
  CHECK(center_named(o["centers"], "farm")["response_ms"].get<double>() == 1.0);
  for (const char* n : {"1000", "1000000"}) {
    auto closed = timed({"whatif", "--config", config, "--store", store, "--clients", n, "--metric",
                         "throughput", "--explain", "--json"});
    INFO("N = " << n << ": " << closed.err);
    REQUIRE(closed.exit_code == 0);
    json c = json::parse(closed.out);
    CHECK(c["closed"]["throughput"].get<double>() == Approx(200).epsilon(1e-6));
    CHECK(c["bottleneck"] == "disk");
    const json& farm = center_named(c["centers"], "farm");
    CHECK(farm["response_ms"].get<double>() == Approx(1.0).epsilon(1e-12));  // a delay: no queueing
    CHECK(farm["queue_length"].get<double>() == Approx(0.2).epsilon(1e-6));  // X·D
  }
  fs::remove_all(dir);
}

TEST_CASE("whatif stops at SIGINT or SIGTERM while it computes, exit code 130") {
  // Ten thread pools of 100 tokens, each solved as an exact QBD at every rate the λ* search
  // tries: several seconds of computing (17 s on a loaded 2-core machine), nothing to wait for.
  fs::path dir = fresh_dir("interrupt");
  {
    std::ofstream out(dir / "pools.toml");
    out << "[testbed]\nname = \"pools\"\n\n[peak]\nr_sat_ms = 400\nwidth = 0.1\n";
    for (int i = 0; i < 10; ++i) {
      // Different service times: the QBD memo answers no pool from another's solution.
      out << "\n[[model.center]]\nname = \"pool" << i << "\"\nkind = \"pool\"\nservers = 100\n"
          << "\n[[model.center]]\nname = \"cpu" << i << "\"\nservers = 2\nservice_ms = " << 1 + 0.01 * i
          << "\nwithin = \"pool" << i << "\"\n"
          << "\n[[model.center]]\nname = \"disk" << i << "\"\nservers = 2\nservice_ms = " << 10 + 0.1 * i
          << "\nwithin = \"pool" << i << "\"\n";
    }
  }
  const std::string config = (dir / "pools.toml").string(), store = (dir / "w.db").string();
  for (int sig : {SIGINT, SIGTERM}) {
    INFO("signal " << sig);
    wb::test::ChildProcess child({kWorkbench, "whatif", "--config", config, "--store", store});
    // Still computing half a second in: the signal arrives during the λ* search.
    REQUIRE_FALSE(child.wait_exit(500ms));
    const auto sent = std::chrono::steady_clock::now();
    child.send_signal(sig);
    std::optional<int> code = child.wait_exit(10s);
    const double after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    std::string err = child.drain_stderr();
    INFO("exited " << after_s << " s after the signal; stderr: " << err);
    REQUIRE(code);
    CHECK(*code == 130);
    CHECK_THAT(err, Catch::Contains("workbench: interrupted"));  // handled, not killed by the signal
    CHECK(child.drain_stdout().empty());                         // no half answer
  }
  fs::remove_all(dir);
}
