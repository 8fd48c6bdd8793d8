// `workbench peak` against the bundled refserver on this machine: the README's main command.
#include <signal.h>
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "core/queue_network.hpp"
#include "models/open_network.hpp"
#include "testbed_support.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using wb::test::kWorkbench;
const std::string kConfigs = std::string(WB_SOURCE_DIR) + "/configs";

// refserver as configs/demo.toml starts it, as a queue network: a pool of `threads` workers;
// each request holds its worker for 0.2 ms of (sleep-emulated) CPU and for its disk visit, queueing
// FCFS for one of `disks` exponential disks. The db_tp mix sends every request to a disk, 4% of
// them sequential at 0.3x the 5 ms random service time: 0.96*5 + 0.04*1.5 = 4.86 ms.
wb::QueueNetwork demo_network() {
  wb::QueueNetwork net;
  wb::ServiceCenter pool;
  pool.name = "threads";
  pool.pool = true;
  pool.servers = wb::Expr::parse("{threads}");
  wb::ServiceCenter cpu;
  cpu.name = "cpu";
  cpu.discipline = wb::Discipline::kDelay;
  cpu.demand_ms = wb::Expr::constant(0.2);
  cpu.within = "threads";
  wb::ServiceCenter disk;
  disk.name = "disk";
  disk.servers = wb::Expr::parse("{disks}");
  disk.demand_ms = wb::Expr::constant(0.96 * 5 + 0.04 * 5 * 0.3);
  disk.within = "threads";
  net.centers = {pool, cpu, disk};
  return net;
}

}  // namespace

TEST_CASE("the demo finds a λ* within 15% of refserver's analytic peak") {
  fs::path dir = wb::test::fresh_dir("demo");
  fs::path store = dir / "demo.db";
  int port = wb::test::free_port();
  std::string config = wb::test::shipped_config_copy("demo.toml", dir, port);
  auto r = wb::test::run_to_exit(
      {kWorkbench, "peak", "--config", config, "--store", store.string(), "--target", "95/90", "--json"},
      1500s);
  INFO(r.err);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["status"] == "found");
  wb::Sample s;
  s.set("threads", std::to_string(j["sample"]["threads"].get<int>()));
  s.set("disks", std::to_string(j["sample"]["disks"].get<int>()));
  double expected = wb::predicted_peak(demo_network(), s, 8);
  double found = j["peak_rate"].get<double>();
  INFO("λ* measured " << found << "/s, analytic " << expected << "/s");
  CHECK(std::abs(found - expected) <= 0.15 * expected);
  CHECK(wb::test::count_processes(fmt::format("--port {} ", port)) == 0);  // refserver is gone
  fs::remove_all(dir);
}

TEST_CASE("nginx started by workbench serves the trials and is stopped afterwards") {
  fs::path dir = wb::test::fresh_dir("nginx");
  fs::path store = dir / "nginx.db";
  int port = wb::test::free_port();
  std::string config = wb::test::shipped_config_copy("nginx.toml", dir, port);
  // The config's port reaches nginx.conf through [[sut.files]]: the template is used as shipped.
  fs::copy(kConfigs + "/nginx", dir / "nginx", fs::copy_options::recursive);
  {
    std::ifstream cin(config);
    std::stringstream cs;
    cs << cin.rdbuf();
    // Two loads show the lifecycle; the shipped count is the config's business, not this test's.
    std::string text = cs.str();
    std::regex loads(R"(\nmax_loads = \d+\n)");
    REQUIRE(std::regex_search(text, loads));
    std::ofstream(config) << std::regex_replace(text, loads, "\nmax_loads = 2\n");
  }
  auto r = wb::test::run_to_exit(
      {kWorkbench, "peak", "--config", config, "--store", store.string(), "--set", "workers=2", "--json"},
      300s);
  INFO(r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["sample"]["workers"] == 2);
  CHECK(std::atoi(wb::test::query(store, "SELECT min(completed) FROM trials").c_str()) > 0);
  CHECK(wb::test::query(store, "SELECT sum(errors) FROM trials") == "0");
  std::this_thread::sleep_for(500ms);
  CHECK(wb::test::count_processes(fmt::format("wb-nginx-{} ", port)) == 0);
  CHECK(fs::exists(fmt::format("/tmp/wb-nginx-{}/nginx.conf", port)));
  fs::remove_all(dir);
  fs::remove_all(fmt::format("/tmp/wb-nginx-{}", port));
}
