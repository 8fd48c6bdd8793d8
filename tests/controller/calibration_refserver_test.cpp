// `workbench model calibrate --method utilization` against a real refserver of configs/demo.toml
// (integration: real refserver and wbload on loopback, two short calibration trials): the disk
// demand the service demand law D = U/X derives from refserver's disk busy time agrees with the
// disk service time refserver was configured with [000 §4.1.1].
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/controller/demo_copy.hpp"
#include "tests/support/workbench_cli.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using wb::test::kWorkbench;

json calibrate(const std::string& config, const std::string& store, const std::string& set,
               const std::string& runlength) {
  auto r = wb::test::run_to_exit(
      {kWorkbench, "model", "calibrate", "--config", config, "--store", store, "--set", set, "--rate", "100",
       "--runlength", runlength, "--method", "utilization", "--json"},
      std::chrono::seconds(120));
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  CHECK(j["method"] == "utilization");
  REQUIRE(j["calibrations"].size() == 1);  // the disk: refserver observes no cpu or net utilization
  REQUIRE(j["calibrations"][0]["center"] == "disk");
  return j["calibrations"][0];
}

}  // namespace

TEST_CASE(
    "model calibrate --method utilization: D = U/X of refserver's disks matches their configured time") {
  const auto [dir, config, store] = wb::test::demo_testbed("calibration_refserver");

  // db_tp: every request one disk operation of exponential time, mean 0.96 × 5 + 0.04 × 1.5 =
  // 4.86 ms. At 100/s for 4 s (plus warm-up) ~450 operations: a standard error of ~5% for their
  // mean, so 25% is five of them (the bound tests/controller/whatif_refserver_test.cpp uses).
  json db = calibrate(config, store, "mix=db_tp,threads=4,disks=2", "4");
  CHECK(std::abs(db["demand_ms"].get<double>() - 4.86) / 4.86 <= 0.25);
  CHECK(db["visits"].get<double>() == Approx(1.0));  // forced flow: disk ops / requests
  CHECK(db["source"].get<std::string>().find("service demand law D = U/X") != std::string::npos);

  // specsfs97: 40% of requests are random reads and writes (exponential, mean 5 ms), 60% metadata
  // with no disk visit. 6 s give ~700 requests, ~280 disk operations: the mean to a standard
  // error of 6% (25% is four), the visit fraction to ±0.02 (0.1 is five).
  json sfs = calibrate(config, store, "mix=specsfs97,threads=4,disks=2", "6");
  CHECK(std::abs(sfs["demand_ms"].get<double>() - 5.0) / 5.0 <= 0.25);
  CHECK(std::abs(sfs["visits"].get<double>() - 0.4) <= 0.1);

  // model show lists both next to the configured demands, with how they were measured.
  auto show = wb::test::run_to_exit({kWorkbench, "model", "show", "--config", config, "--store", store,
                                     "--set", "mix=specsfs97,threads=4,disks=2", "--json"},
                                    std::chrono::seconds(60));
  REQUIRE(show.exit_code == 0);
  json s = json::parse(show.out);
  CHECK(s["calibrations"].size() == 2);
  bool saw_disk = false;
  for (const auto& c : s["centers"]) {
    if (c["name"] != "disk") continue;
    saw_disk = true;
    REQUIRE_FALSE(c["calibrated"].is_null());
    CHECK(c["calibrated"]["demand_ms"] == sfs["demand_ms"]);
    CHECK(c["calibrated"]["source"].get<std::string>().find("D = U/X") != std::string::npos);
    CHECK(c["configured_demand_ms"].get<double>() == Approx(5.0));
    CHECK(c["demand_per_request_ms"].get<double>() ==
          Approx(sfs["demand_ms"].get<double>() * sfs["visits"].get<double>()));
  }
  CHECK(saw_disk);

  // A method that does not exist is bad usage: one line, exit 2, before any trial runs.
  auto bad = wb::test::run_to_exit(
      {kWorkbench, "model", "calibrate", "--config", config, "--store", store, "--method", "iostat"},
      std::chrono::seconds(30));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--method") != std::string::npos);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  fs::remove_all(dir);
}
