// `workbench trial` on the simulated testbed through the real binary [000 §3.2]: fixed-rate
// trials stored as a run, their mean response time with a log-normal CI, and the check against the
// expectation's R(λ) — agreeing on configs/sim.toml, a mismatch when [sim]'s disk is twice as slow
// as [model] says. Bad input changes nothing.
#include <boost/math/distributions/students_t.hpp>
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/trial/trial_support.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;
using wb::test::query;
using wb::test::workbench;

namespace {

using wb::test::kSimConfig;

// configs/sim.toml with the disk of [sim] (not of [model]) taking 30 ms instead of 15.
fs::path slow_disk_config(const fs::path& dir) {
  std::string text = wb::test::read_text(kSimConfig);
  std::size_t disk = text.find("[[sim.center]]\nname = \"disk\"");
  REQUIRE(disk != std::string::npos);
  std::size_t at = text.find("service_ms = 15\n", disk);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find("[[model.center]]") > at);  // the expectation keeps 15 ms
  text.replace(at, std::string("service_ms = 15").size(), "service_ms = 30");
  fs::path p = dir / "sim.toml";
  std::ofstream(p) << text;
  return p;
}

std::string count(const std::string& store, const std::string& table) {
  return query(store, "SELECT COUNT(*) FROM " + table).at(0).at(0);
}

// `columns` of the one row of `table` with this `id` (as rows of query: [0] is that row).
std::vector<std::vector<std::string>> row_by_id(const std::string& store, const std::string& columns,
                                                const std::string& table, const std::string& id) {
  auto rows = query(store, "SELECT " + columns + " FROM " + table + " WHERE id = " + id);
  REQUIRE(rows.size() == 1);
  return rows;
}

}  // namespace

TEST_CASE("a fixed-rate run that agrees with the expectation is stored with its log-normal CI") {
  fs::path dir = wb::test::fresh_dir("agree");
  const std::string store = (dir / "w.db").string();
  auto r = workbench({"trial", "--config", kSimConfig, "--store", store, "--set", "disks=2,threads=16",
                      "--rate", "100", "--runlength", "20", "--trials", "3", "--json"},
                     120s);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  REQUIRE(j["trials"].size() == 3);
  std::vector<double> means;
  for (const auto& t : j["trials"]) {
    CHECK(t["offered_rate"].get<double>() == 100);
    CHECK(t["runlength_s"].get<double>() == 20);
    CHECK(t["stage_ms"].is_null());  // the simulated testbed has no stages
    means.push_back(t["mean_ms"].get<double>());
  }
  // The CI is the modified Cox interval of a log-normal mean with n-1 = 2 degrees of freedom at
  // [peak] target's 95%: exp(ȳ + s²/2 ± t·√(s²/n + s⁴/(2(n-1)))) over y = ln(mean).
  const double mean = (means[0] + means[1] + means[2]) / 3;
  double ybar = 0, ss = 0;
  for (double m : means) ybar += std::log(m) / 3;
  for (double m : means) ss += (std::log(m) - ybar) * (std::log(m) - ybar);
  const double s2 = ss / 2;
  const double w =
      boost::math::quantile(boost::math::students_t(2), 0.975) * std::sqrt(s2 / 3 + s2 * s2 / (2 * 2));
  const double low = std::exp(ybar + s2 / 2 - w), high = std::exp(ybar + s2 / 2 + w);
  CHECK(j["response"]["mean_ms"].get<double>() == Approx(mean));
  CHECK(j["response"]["ci_low_ms"].get<double>() == Approx(low));
  CHECK(j["response"]["ci_high_ms"].get<double>() == Approx(high));
  CHECK(low > 0);
  CHECK(j["response"]["confidence"].get<double>() == Approx(0.95));
  // The model's R(100/s) at this sample is within 15% of what the simulation measures.
  REQUIRE(j["expectation"]["response_ms"].is_number());
  const double expected = j["expectation"]["response_ms"].get<double>();
  CHECK(std::abs(expected - mean) < 0.15 * mean);
  CHECK(j["mismatch"].is_null());
  CHECK_FALSE(j["saturated"].get<bool>());

  // Stored: one run of policy and status "fixed" with the mean and CI, and its three trials.
  const std::string id = std::to_string(j["run_id"].get<std::int64_t>());
  auto run =
      row_by_id(store, "policy, status, mean_ms, ci_low_ms, ci_high_ms, trials, peak_rate", "searches", id);
  CHECK(run[0][0] == "fixed");
  CHECK(run[0][1] == "fixed");
  CHECK(std::stod(run[0][2]) == Approx(mean));
  CHECK(std::stod(run[0][3]) == Approx(low));
  CHECK(run[0][5] == "3");
  CHECK(run[0][6].empty());  // a fixed-rate run has no λ*
  auto trials =
      query(store, "SELECT rate, mean_ms, stages_json FROM trials WHERE search_id = " + id + " ORDER BY id");
  REQUIRE(trials.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(std::stod(trials[i][0]) == 100);
    CHECK(std::stod(trials[i][1]) == Approx(means[i]));
    CHECK(trials[i][2].empty());
  }
  CHECK(count(store, "mismatches") == "0");

  // The human output says the same.
  auto h = workbench({"trial", "--config", kSimConfig, "--store", store, "--set", "disks=2,threads=16",
                      "--rate", "100", "--runlength", "20", "--trials", "3"},
                     120s);
  REQUIRE(h.exit_code == 0);
  CHECK(h.out.find("95% CI [") != std::string::npos);
  CHECK(h.out.find("within tolerance") != std::string::npos);
}

TEST_CASE("a fixed-rate run far from the expectation records a response-time mismatch and plans probes") {
  fs::path dir = wb::test::fresh_dir("mismatch");
  fs::path config = slow_disk_config(dir);
  const std::string store = (dir / "w.db").string();
  auto r = workbench({"trial", "--config", config.string(), "--store", store, "--set", "disks=2,threads=16",
                      "--rate", "40", "--runlength", "20", "--trials", "3", "--json"},
                     120s);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 1);  // the check failed
  json j = json::parse(r.out);
  const double mean = j["response"]["mean_ms"].get<double>();
  const double expected = j["expectation"]["response_ms"].get<double>();
  // The simulated disk takes twice what the model says: the measured mean is well above R(40/s).
  CHECK(mean > 1.5 * expected);
  CHECK(expected < j["response"]["ci_low_ms"].get<double>());
  REQUIRE(j["mismatch"].is_object());
  CHECK(j["mismatch"]["center"].is_null());  // no stage times on the simulated testbed
  CHECK(j["mismatch"]["ratio"].get<double>() == Approx(mean / expected));
  CHECK(r.err.find("mismatch: ") != std::string::npos);
  CHECK(r.err.find("fixed-rate run") != std::string::npos);

  const std::string mid = std::to_string(j["mismatch"]["mismatch_id"].get<std::int64_t>());
  auto m = row_by_id(store, "metric, expected, measured, search_id, center, attributes_json, sample",
                     "mismatches", mid);
  CHECK(m[0][0] == "mean_ms");
  CHECK(std::stod(m[0][1]) == Approx(expected));
  CHECK(std::stod(m[0][2]) == Approx(mean));
  CHECK(m[0][3] == std::to_string(j["run_id"].get<std::int64_t>()));
  CHECK(m[0][4].empty());
  // Every Z-CART attribute is ranked: both factors, then the expectation model's derived metrics
  // (experiment/zcart_attributes.hpp).
  std::set<std::string> ranked;
  for (const auto& a : json::parse(m[0][5])) ranked.insert(a["name"].get<std::string>());
  CHECK(ranked == std::set<std::string>{"disks", "threads", "expected_peak", "bottleneck", "bottleneck_util",
                                        "nfsd_per_disk", "nfsd_lambda_max", "disk_lambda_max"});
  CHECK(m[0][6] == "disks=2,threads=16");
  auto probes = query(store, "SELECT COUNT(*) FROM probes WHERE mismatch_id = " + mid);
  CHECK(probes.at(0).at(0) == std::to_string(j["mismatch"]["probe_ids"].size()));

  // report lists it as a response-time mismatch.
  auto rep = workbench({"report", "--config", config.string(), "--store", store, "--json"}, 60s);
  REQUIRE(rep.exit_code == 0);
  json rj = json::parse(rep.out);
  REQUIRE(rj["mismatches"].size() == 1);
  CHECK(rj["mismatches"][0]["metric"] == "mean_ms");
  CHECK(rj["mismatches"][0]["measured"].get<double>() == Approx(mean));
}

TEST_CASE("bad input to workbench trial is one line, exit 2, and changes nothing in the store") {
  fs::path dir = wb::test::fresh_dir("bad");
  const std::string store = (dir / "w.db").string();
  auto good = workbench({"trial", "--config", kSimConfig, "--store", store, "--rate", "50", "--runlength",
                         "5", "--trials", "2", "--json"},
                        60s);
  REQUIRE(good.exit_code == 0);
  const std::string searches = count(store, "searches"), trials = count(store, "trials");
  const std::vector<std::vector<std::string>> bad{
      {"--rate", "0"},
      {"--rate", "-5"},
      {"--rate", "fast"},
      {"--rate", "50", "--trials", "1"},
      {"--rate", "50", "--trials", "5000"},
      {"--rate", "50", "--runlength", "-2"},
      {"--rate", "50", "--set", "disks=7"},
      {"--rate", "50", "--set", "colour=red"},
      {"--runlength", "5"},  // no --rate
  };
  for (const auto& args : bad) {
    std::vector<std::string> full{"trial", "--config", kSimConfig, "--store", store};
    full.insert(full.end(), args.begin(), args.end());
    auto r = workbench(full, 30s);
    INFO("args: " << args.at(0) << " " << args.at(1) << (args.size() > 2 ? " " + args.at(2) : "")
                  << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.rfind("workbench: ", 0) == 0);
  }
  CHECK(count(store, "searches") == searches);
  CHECK(count(store, "trials") == trials);
  // A store that did not exist is not created by bad input.
  auto r =
      workbench({"trial", "--config", kSimConfig, "--store", (dir / "new.db").string(), "--rate", "0"}, 30s);
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(dir / "new.db"));
}

TEST_CASE("workbench trial --help says what it measures, how it checks and how it exits") {
  auto r = workbench({"trial", "--help"}, 30s);
  REQUIRE(r.exit_code == 0);
  for (const char* word :
       {"--rate", "--runlength", "--trials", "--set", "log-normal", "mismatch", "15%", "Exit 0", "Example"}) {
    INFO(word);
    CHECK(r.out.find(word) != std::string::npos);
  }
}
