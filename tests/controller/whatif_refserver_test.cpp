// The expectation model against the real refserver of configs/demo.toml (integration: real
// refserver, real wbload, on loopback; bounded to one calibration trial and one short search).
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/controller/demo_copy.hpp"
#include "tests/support/workbench_cli.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json run_json(std::vector<std::string> args, std::chrono::seconds timeout) {
  auto r = wb::test::run_workbench(std::move(args), timeout);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE(
    "model calibrate reads refserver's stage times — the model's response time matches a measured search") {
  const auto [dir, config, store] = wb::test::demo_testbed("whatif_refserver");
  const std::string set = "mix=db_tp,threads=4,disks=2";

  // One 8 s trial at a low rate: ~800 requests, every one a disk op with mean 4.86 ms. (With 4 s,
  // one standard error of the demand, 5%, moves the model's R near λ* by about 10%: two disks at
  // utilization 0.6 double a demand's relative error in R.)
  json cal = run_json({"model", "calibrate", "--config", config, "--store", store, "--set", set, "--rate",
                       "100", "--runlength", "8", "--json"},
                      120s);
  std::map<std::string, json> by_center;
  for (const auto& c : cal["calibrations"]) by_center[c["center"]] = c;
  REQUIRE(by_center.count("disk") == 1);
  REQUIRE(by_center.count("cpu") == 1);
  // The disk's mean service (refserver's emulated time, exponential with mean 4.86 ms for db_tp):
  // ~800 draws have a standard error of 3.5%; 25% is seven of them.
  CHECK(std::abs(by_center["disk"]["demand_ms"].get<double>() - 4.86) / 4.86 <= 0.25);
  CHECK(by_center["disk"]["visits"].get<double>() == Approx(1.0));
  // CPU: --cpu-ms 0.2 with the default exponential distribution, and refserver records the drawn
  // time (its virtual clock), not the oversleep; so the same ~800 draws, the same standard error,
  // the same 25% bound. (CI once measured 0.179 from 400 draws: 2.1 standard errors low.)
  CHECK(std::abs(by_center["cpu"]["demand_ms"].get<double>() - 0.2) / 0.2 <= 0.25);
  // What wbload saw beyond refserver's residence: loopback and two network threads, a fraction of
  // a millisecond on an idle machine, a few on a busy one; never nothing.
  REQUIRE(by_center.count("net") == 1);
  CHECK(by_center["net"]["demand_ms"].get<double>() > 0.0);
  CHECK(by_center["net"]["demand_ms"].get<double>() < 5.0);

  // model show now reports the calibrated demands next to the configured ones.
  json show = run_json({"model", "show", "--config", config, "--store", store, "--set", set, "--json"}, 60s);
  for (const auto& c : show["centers"]) {
    if (c["name"] == "disk") {
      REQUIRE_FALSE(c["calibrated"].is_null());
      CHECK(c["calibrated"]["demand_ms"] == by_center["disk"]["demand_ms"]);
      CHECK(c["configured_demand_ms"].get<double>() == Approx(4.86));
    }
  }
  // The calibration was measured at mix=db_tp: it serves other threads/disks settings of db_tp,
  // not another mix.
  json other = run_json(
      {"whatif", "--config", config, "--store", store, "--set", "mix=db_tp,threads=8,disks=4", "--json"},
      60s);
  CHECK(other["answers"][0]["calibrated"] == json::array({"cpu", "disk", "net"}));
  json web = run_json({"whatif", "--config", config, "--store", store, "--set", "mix=web", "--json"}, 60s);
  CHECK(web["answers"][0]["calibrated"] == json::array({"cpu", "net"}));

  // A short search (90/80) at the calibrated sample, and the expectation stored with it. A 90/80
  // search settles on any load whose response CI (±20%) overlaps the peak-rate region, so its λ*
  // is too coarse to hold the model's λ* to a few percent (that is the 95/90 comparison in the
  // issue's closing note). What it does measure well is the mean response time at the load it
  // settled on: the model's R at that load must lie within the search's CI, widened by the 10%
  // the expectation is allowed.
  json peak = run_json(
      {"peak", "--config", config, "--store", store, "--set", set, "--target", "90/80", "--json"}, 900s);
  REQUIRE(peak["status"] == "found");
  double m = peak["peak_rate"].get<double>();
  json at = run_json({"whatif", "--config", config, "--store", store, "--set", set, "--metric", "response",
                      "--rate", std::to_string(m), "--json"},
                     60s);
  double r_model = at["answers"][0]["value"].get<double>();
  double lo = peak["response"]["ci_low_ms"].get<double>(), hi = peak["response"]["ci_high_ms"].get<double>();
  json expected = run_json({"whatif", "--config", config, "--store", store, "--set", set, "--json"}, 60s);
  double e = expected["answers"][0]["value"].get<double>();
  INFO("at λ = " << m << "/s: model R " << r_model << " ms, measured CI [" << lo << ", " << hi
                 << "] ms; model λ* " << e << "/s");
  CHECK(r_model >= 0.9 * lo);
  CHECK(r_model <= 1.1 * hi);
  json report = run_json({"report", "--config", config, "--store", store, "--json"}, 60s);
  REQUIRE(report["searches"].size() == 1);
  CHECK(report["searches"][0]["expected"].get<double>() == Approx(e));
  fs::remove_all(dir);
}
