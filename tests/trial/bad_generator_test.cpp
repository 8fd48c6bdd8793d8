// A generator that prints impossible figures (fake_wbload standing in for wbload, taken from
// WB_BIN_DIR as a user would substitute a build of their own) beside a real refserver: `workbench
// trial` fails the trial with one line naming the host and the field, and stores no trial. The
// honest case first shows that the same setup stores trials when the figures are possible.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/trial/trial_support.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

fs::path config_for(const fs::path& dir, const std::string& fake_case) {
  std::string text = R"([testbed]
name = "fake"

[peak]
r_sat_ms = 50
width = 0.1
runlength_s = 1

[sut]
start = "{refserver} --port {port} --bind 127.0.0.1 --threads 2 --disks 1 --cpu-ms 0.1 --disk-ms 0.1"
ready = "line"
port = PORT

[workload]
protocol = "rpc"
target = "127.0.0.1:{port}"
warmup_s = 0
timeout_s = 5
args = ["--fake-case", "CASE"]
)";
  text.replace(text.find("PORT"), 4, std::to_string(wb::test::free_port()));
  text.replace(text.find("CASE"), 4, fake_case);
  fs::path p = dir / (fake_case + ".toml");
  std::ofstream(p) << text;
  return p;
}

// WB_BIN_DIR for workbench: the fake as wbload, the real refserver.
fs::path bin_dir(const fs::path& dir) {
  fs::path bin = dir / "bin";
  fs::create_directories(bin);
  fs::create_symlink(std::string(WB_BINARY_DIR) + "/tests/trial/fake_wbload", bin / "wbload");
  fs::create_symlink(std::string(WB_BINARY_DIR) + "/sut/refserver", bin / "refserver");
  return bin;
}

wb::test::RunResult trial(const fs::path& bin, const fs::path& config, const std::string& store) {
  return wb::test::run_to_exit(
      {"/usr/bin/env", "WB_BIN_DIR=" + bin.string(), wb::test::kWorkbench, "trial", "--config",
       config.string(), "--store", store, "--rate", "200", "--trials", "2"},
      60s);
}

std::string trial_rows(const std::string& store) {
  return wb::test::query(store, "SELECT COUNT(*) FROM trials").at(0).at(0);
}

}  // namespace

TEST_CASE("impossible generator figures fail the trial with one line and store nothing") {
  const fs::path dir = wb::test::fresh_dir("bad_generator");
  const fs::path bin = bin_dir(dir);

  const std::string good_store = (dir / "good.db").string();
  auto good = trial(bin, config_for(dir, "good"), good_store);
  INFO("stderr: " << good.err);
  REQUIRE(good.exit_code == 0);
  CHECK(trial_rows(good_store) == "2");

  const std::vector<std::pair<std::string, std::string>> cases{
      {"negative_sum", "result.histogram.sum: -4e+12 is not a sum of latencies"},
      {"nan_rate", "not JSON"},
      {"huge_number", "not JSON"},
      {"huge_rate", "result.achieved_rate: 1e+15"},
      {"negative_rate", "result.offered_rate: -100"},
      {"zero_duration", "result.duration_s: 0"},
      {"completed_gt_sent", "result.completed: 201 exceeds result.sent 200"},
      {"count_mismatch", "result.histogram.count: 200 does not equal result.completed 201"},
      {"mean_above_max", "result.histogram.sum: the mean 3000000 ns lies outside [min, max]"},
      {"too_many", "result.sent: completed + errors + timeouts is 20000"},
      {"beyond_timeout", "result.histogram.max"},
      {"wrong_rate", "result.offered_rate: 400 is not the rate asked for"},
  };
  for (const auto& [name, field] : cases) {
    INFO(name);
    const std::string store = (dir / (name + ".db")).string();
    auto r = trial(bin, config_for(dir, name), store);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::StartsWith("workbench: wbload on local printed an "));
    CHECK_THAT(r.err, Catch::Contains(field));
    CHECK(trial_rows(store) == "0");
  }
}
