#pragma once
// Test helpers of the probe loop's CLI tests: the real workbench binary on configs/sim.toml with a
// hidden deviation in [sim] (the disks slow down from 15 to 30 ms at 4 disks) that the
// expectation ([model], still 15 ms) does not know.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/support/store_rows.hpp"
#include "tests/support/workbench_cli.hpp"

namespace wb::test::probes {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;
using wb::test::run_to_exit;

using wb::test::kSimConfig;
using wb::test::kWorkbench;
inline const std::string kDeviation = R"x(service_ms = "15 + 15 * max(0, min(1, {disks} - 3))")x";

inline fs::path fresh_dir(const std::string& name) { return temp_dir("probes", name); }

inline std::string read_file(const fs::path& p) { return read_text(p); }

// configs/sim.toml with the disk's service time in [sim] (not [model]) replaced by kDeviation.
inline fs::path deviating_config(const fs::path& dir) {
  std::string text = read_file(kSimConfig);
  std::size_t disk = text.find("[[sim.center]]\nname = \"disk\"");
  REQUIRE(disk != std::string::npos);
  std::size_t at = text.find("service_ms = 15\n", disk);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find("[[model.center]]") > at);  // the expectation keeps 15 ms
  text.replace(at, std::string("service_ms = 15").size(), kDeviation);
  fs::path p = dir / "sim.toml";
  std::ofstream(p) << text;
  return p;
}

// A bound against a hang, not a speed check: under the sanitizers one map-surface or agent run
// here takes minutes (see CMakeLists.txt).
inline wb::test::RunResult workbench(std::vector<std::string> args) {
  return run_workbench(std::move(args), 400s);
}

inline json run_json(const std::vector<std::string>& args) {
  auto r = workbench(args);
  INFO("args: " << args[0] << " " << (args.size() > 1 ? args[1] : "") << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

inline std::vector<std::vector<std::string>> query(const std::string& db_path, const std::string& sql) {
  return query_rows(db_path, sql);
}

inline std::int64_t max_search_id(const std::string& store) {
  auto rows = query(store, "SELECT COALESCE(MAX(id), 0) FROM searches");
  return std::stoll(rows.at(0).at(0));
}

// map-surface on the deviating config; returns its stderr.
inline std::string map_surface(const fs::path& config, const std::string& store) {
  auto r = workbench({"map-surface", "--config", config.string(), "--store", store, "--factors",
                      "disks,threads", "--points", "8", "--json"});
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r.err;
}

// Every probe done, each by its own search, and the searches after `before` are exactly one per
// probe sample: no probe ran twice, none was skipped.
inline void check_each_probe_ran_once(const std::string& store, std::int64_t before,
                                      std::size_t expected_probes) {
  auto probes = query(store, "SELECT id, sample, status, search_id FROM probes WHERE status != 'cancelled'");
  REQUIRE(probes.size() == expected_probes);
  std::set<std::string> search_ids;
  std::set<std::string> samples;
  for (const auto& p : probes) {
    CHECK(p[2] == "done");
    CHECK_FALSE(p[3].empty());
    search_ids.insert(p[3]);
    samples.insert(p[1]);
  }
  CHECK(search_ids.size() == probes.size());
  auto after = query(store, "SELECT sample, COUNT(*) FROM searches WHERE id > " + std::to_string(before) +
                                " GROUP BY sample");
  CHECK(after.size() == probes.size());
  for (const auto& row : after) {
    INFO("sample " << row[0]);
    CHECK(row[1] == "1");
    CHECK(samples.count(row[0]) == 1);
  }
}

}  // namespace wb::test::probes
