// [workload] generator = "command": a generator written for this test (redis_ping_gen.py, Python)
// plugged in through a template and a JSON pointer map, against a real redis-server whose every
// request is a `DEBUG SLEEP` of 2 ms — one server of 2 ms, so λ* is below 500/s. `workbench trial`
// and a short `workbench peak` run through the adapter; bad output fails the trial with one line.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "testbed_support.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using wb::test::kWorkbench;

// The testbed; `output` is the [workload.output] table's body, `extra` more client arguments,
// `workload` more [workload] keys.
std::string command_testbed(int port, const std::string& output, const std::string& extra = "",
                            const std::string& workload = "") {
  return fmt::format(R"([testbed]
name = "redis-sleep"

[peak]
r_sat_ms = 30
width = 0.25
target = "90/70"
start_rate = 20
runlength_s = 1
max_trials = 5
max_loads = 10

[sut]
start = "redis-server --port {{port}} --bind 127.0.0.1 --save \"\" --appendonly no --enable-debug-command local"
ready = "tcp"
port = {port}

[workload]
generator = "command"
command = "python3 {script} --target {{target}} --rate {{rate}} --duration {{duration}} --warmup {{warmup}} --timeout {{timeout}} --connections {{connections}} --seed {{seed}} --command \"DEBUG SLEEP 0.01\"{extra}"
target = "127.0.0.1:{{port}}"
connections = 8
warmup_s = 0.3
timeout_s = 1
{workload}
[workload.output]
{output})",
                     fmt::arg("port", port), fmt::arg("output", output), fmt::arg("extra", extra),
                     fmt::arg("workload", workload),
                     fmt::arg("script", std::string(WB_SOURCE_DIR) + "/tests/testbed/redis_ping_gen.py"));
}

const char* const kOutput = R"(completed = "/summary/ok"
sent = "/summary/sent"
errors = "/summary/failed"
timeouts = "/summary/late"
achieved_rate = "/summary/throughput"
latencies = "/latency/histogram"
latency_unit = "us"
)";

}  // namespace

TEST_CASE("command generator: a test's own Python client drives redis through trial and peak") {
  fs::path dir = wb::test::fresh_dir("command-gen");
  int port = wb::test::free_port();
  fs::path config = dir / "redis.toml";
  std::ofstream(config) << command_testbed(port, kOutput);
  fs::path store = dir / "s.db";

  auto trial =
      wb::test::run_to_exit({kWorkbench, "trial", "--config", config.string(), "--store", store.string(),
                             "--rate", "30", "--trials", "2", "--runlength", "1", "--json"},
                            120s);
  INFO(trial.err);
  REQUIRE(trial.exit_code == 0);
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "2");
  CHECK(wb::test::query(store, "SELECT sum(errors) FROM trials") == "0");
  // 30/s for 1 s each: Poisson counts, within 5 standard deviations (~27) of 30.
  CHECK(std::atof(wb::test::query(store, "SELECT min(achieved_rate) FROM trials").c_str()) > 3);
  CHECK(std::atof(wb::test::query(store, "SELECT max(achieved_rate) FROM trials").c_str()) < 60);
  // Every request sleeps 10 ms in redis: no mean below that.
  CHECK(std::atof(wb::test::query(store, "SELECT min(mean_ms) FROM trials").c_str()) >= 10.0);

  auto peak = wb::test::run_to_exit(
      {kWorkbench, "peak", "--config", config.string(), "--store", store.string(), "--json"}, 300s);
  INFO(peak.err);
  REQUIRE((peak.exit_code == 0 || peak.exit_code == 1));
  auto j = nlohmann::json::parse(peak.out);
  INFO(peak.out);
  // One server of 10 ms answers at most 100/s; the 30 ms region is crossed before that (M/D/1
  // puts it at 80/s; the client's own delays move it lower on a busy machine). A short search on a
  // shared machine may run out of loads; it must not end for another reason.
  if (j["status"] == "found" || j["status"] == "cliff" || j["status"] == "bistable") {
    CHECK(j["peak_rate"].get<double>() < 100);
    CHECK(j["peak_rate"].get<double>() > 30);
  } else {
    CHECK((j["status"] == "not-found" && j["loads"].size() == 10));
    CHECK(j["loads"].back()["rate"].get<double>() < 100);
  }
  CHECK(wb::test::count_processes(fmt::format("--port {} ", port)) == 0);
  CHECK(wb::test::count_processes("redis_ping_gen.py") == 0);
  fs::remove_all(dir);
}

TEST_CASE("command generator: output that breaks the map fails the trial with one line, nothing stored") {
  fs::path dir = wb::test::fresh_dir("command-gen-bad");
  int port = wb::test::free_port();
  fs::path config = dir / "redis.toml";
  // The client prints its histogram at /latency/histogram; this map looks elsewhere.
  std::ofstream(config) << command_testbed(port, "completed = \"/summary/ok\"\nlatencies = \"/latencies\"\n");
  fs::path store = dir / "s.db";
  auto r = wb::test::run_to_exit({kWorkbench, "trial", "--config", config.string(), "--store", store.string(),
                                  "--rate", "20", "--trials", "2", "--runlength", "1"},
                                 120s);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("command on local printed an unreadable or impossible result: output has "
                                    "nothing at /latencies (workload.output.latencies)"));
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "0");
  CHECK(wb::test::count_processes(fmt::format("--port {} ", port)) == 0);
  fs::remove_all(dir);
}

TEST_CASE("command generator: an HdrHistogram interval log read through format = \"hdr-log\"") {
  fs::path dir = wb::test::fresh_dir("command-gen-hdr");
  int port = wb::test::free_port();
  fs::path config = dir / "redis.toml";
  std::ofstream(config) << command_testbed(port, "format = \"hdr-log\"\nlatency_unit = \"us\"\n",
                                           " --output hdr-log");
  fs::path store = dir / "s.db";
  auto r = wb::test::run_to_exit({kWorkbench, "trial", "--config", config.string(), "--store", store.string(),
                                  "--rate", "30", "--trials", "2", "--runlength", "1"},
                                 120s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "2");
  CHECK(std::atof(wb::test::query(store, "SELECT min(achieved_rate) FROM trials").c_str()) > 3);
  // Every request sleeps 10 ms in redis; the log's values are microseconds.
  CHECK(std::atof(wb::test::query(store, "SELECT min(mean_ms) FROM trials").c_str()) >= 10.0);
  CHECK(std::atof(wb::test::query(store, "SELECT max(mean_ms) FROM trials").c_str()) < 1000.0);
  fs::remove_all(dir);
}

TEST_CASE("command generator: [workload] cpus pins the generator process to those CPUs") {
  REQUIRE(std::thread::hardware_concurrency() >= 2);  // else no list excludes a CPU
  fs::path dir = wb::test::fresh_dir("command-gen-cpus");
  int port = wb::test::free_port();
  fs::path store = dir / "s.db";
  // The client exits 1 unless its affinity is exactly CPU 0.
  auto trial = [&](const std::string& workload) {
    fs::path config = dir / "redis.toml";
    std::ofstream(config) << command_testbed(port, kOutput, " --require-cpus 0", workload);
    return wb::test::run_to_exit({kWorkbench, "trial", "--config", config.string(), "--store", store.string(),
                                  "--rate", "20", "--trials", "2", "--runlength", "1"},
                                 120s);
  };
  auto pinned = trial("cpus = \"0\"\n");
  INFO(pinned.err);
  CHECK(pinned.exit_code == 0);
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "2");
  auto unpinned = trial("");
  CHECK(unpinned.exit_code != 0);
  CHECK_THAT(unpinned.err, Catch::Contains("runs on CPUs [0, 1"));
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "2");
  CHECK(wb::test::count_processes(fmt::format("--port {} ", port)) == 0);
  fs::remove_all(dir);
}
