// configs/storage.toml end to end: `workbench trial` with [workload] trace = true stores each
// trial's operations, `workbench trace` lists and writes one out, and `workbench whatif` answers
// through [model.storage]: a bigger cache, a higher predicted hit rate and λ*.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "testbed_support.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using wb::test::kWorkbench;

TEST_CASE("storage trials record traces that whatif replays through the cache") {
  fs::path dir = wb::test::fresh_dir("storage");
  const std::string store = (dir / "storage.db").string();
  const int port = wb::test::free_port();
  const std::string config = wb::test::shipped_config_copy("storage.toml", dir, port);
  // Before a trace exists whatif says which file is missing.
  auto before = wb::test::run_to_exit({kWorkbench, "whatif", "--config", config, "--store", store}, 60s);
  CHECK(before.exit_code == 2);
  CHECK(before.err.find("storage-trace.csv") != std::string::npos);

  auto r = wb::test::run_to_exit({kWorkbench, "trial", "--config", config, "--store", store, "--set",
                                  "cache_mb=2", "--rate", "200", "--runlength", "4", "--trials", "2"},
                                 120s);
  INFO(r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));  // 1: the run disagreed with the (absent) model
  auto list =
      wb::test::run_to_exit({kWorkbench, "trace", "--config", config, "--store", store, "--json"}, 30s);
  REQUIRE(list.exit_code == 0);
  const auto traces = nlohmann::json::parse(list.out);
  REQUIRE(traces.size() == 2);
  for (const auto& t : traces) {
    CHECK(t["sample"] == "cache_mb=2");
    // Every completed operation of the window, none beyond it.
    const auto completed = wb::test::query(
        fs::path(store), fmt::format("SELECT completed FROM trials WHERE id = {}", t["trial"].get<int>()));
    CHECK(t["ops"].get<long>() == std::stol(completed));
  }
  const int trial = traces[1]["trial"].get<int>();
  auto out = wb::test::run_to_exit({kWorkbench, "trace", "--config", config, "--store", store, "--trial",
                                    std::to_string(trial), "--out", (dir / "storage-trace.csv").string()},
                                   30s);
  REQUIRE(out.exit_code == 0);
  // The mix's operations: 4 KiB at block-aligned offsets inside 32 KiB files 0..999.
  std::istringstream csv(wb::test::read_text((dir / "storage-trace.csv").string()));
  std::string line;
  std::getline(csv, line);
  CHECK(line == "op,file,offset,size,start_s,duration_s");
  int reads = 0;
  while (std::getline(csv, line)) {
    std::istringstream f(line);
    std::string op, file, offset, size;
    std::getline(f, op, ',');
    std::getline(f, file, ',');
    std::getline(f, offset, ',');
    std::getline(f, size, ',');
    if (op != "read") continue;
    ++reads;
    CHECK(std::stoul(file) < 1000);
    CHECK(std::stoul(offset) % 4096 == 0);
    CHECK(std::stoul(offset) + 4096 <= 32768);
    CHECK(size == "4096");
  }
  CHECK(reads > 500);

  auto whatif = [&](const char* mb) {
    auto w = wb::test::run_to_exit({kWorkbench, "whatif", "--config", config, "--store", store, "--set",
                                    fmt::format("cache_mb={}", mb), "--json"},
                                   60s);
    INFO(w.err);
    REQUIRE(w.exit_code == 0);
    return nlohmann::json::parse(w.out);
  };
  // A short trace's footprint fits a few MiB: the sizes that differ are below it.
  const auto none = whatif("0"), some = whatif("0.25"), more = whatif("4");
  CHECK(none["storage"]["read_hit_rate"] == 0.0);
  CHECK(none["storage"]["disk_visits"].get<double>() > 0.9);    // 95 % reads and writes reach the disk
  CHECK(some["storage"]["read_hit_rate"].get<double>() > 0.0);  // the Zipf head is re-read
  CHECK(more["storage"]["read_hit_rate"].get<double>() > some["storage"]["read_hit_rate"].get<double>());
  CHECK(none["peak_rate"].get<double>() < some["peak_rate"].get<double>());
  CHECK(some["peak_rate"].get<double>() < more["peak_rate"].get<double>());
  fs::remove_all(dir);
}
