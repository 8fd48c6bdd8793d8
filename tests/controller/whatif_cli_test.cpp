// `workbench whatif`, `model show` and `report` as a user runs them, on the simulated testbed: the
// real binary, a real store. The expectation is checked against the simulation's own truth, the
// operational laws, and what `peak` measures.
#include <sqlite3.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;
using wb::test::run_to_exit;

namespace {

const std::string kWorkbench = std::string(WB_BINARY_DIR) + "/controller/workbench";
const std::string kSimConfig = std::string(WB_SOURCE_DIR) + "/configs/sim.toml";
const std::string kDemoConfig = std::string(WB_SOURCE_DIR) + "/configs/demo.toml";

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wb_whatif_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

wb::test::RunResult workbench(std::vector<std::string> args) {
  args.insert(args.begin(), kWorkbench);
  return run_to_exit(args, 120s);
}

json run_json(const std::vector<std::string>& args) {
  auto r = workbench(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double rel(double a, double b) { return std::abs(a - b) / b; }

}  // namespace

TEST_CASE("whatif's λ* on the simulated testbed is within 10% of the simulated truth") {
  fs::path dir = fresh_dir("truth");
  std::string store = (dir / "w.db").string();
  for (std::string set : {"disks=2,threads=16", "disks=4,threads=4", "disks=1,threads=100"}) {
    json w = run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", set, "--json"});
    json t = run_json({"sim", "truth", "--config", kSimConfig, "--store", store, "--set", set, "--json"});
    REQUIRE(w["answers"].size() >= 1);
    double expected = w["answers"][0]["value"].get<double>();
    double truth = t["peak_rate"].get<double>();
    INFO(set << ": expected " << expected << ", true " << truth);
    CHECK(rel(expected, truth) <= 0.10);
  }
  fs::remove_all(dir);
}

TEST_CASE("whatif answers follow the DESIGN contract and the operational laws") {
  fs::path dir = fresh_dir("laws");
  std::string store = (dir / "w.db").string();
  std::vector<std::string> base{"whatif", "--config", kSimConfig,          "--store",
                                store,    "--set",    "disks=2,threads=16"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    a.push_back("--json");
    return run_json(a);
  };

  json peak = with({});
  CHECK(peak["sample"]["disks"] == 2);
  CHECK(peak["sample"]["threads"] == 16);
  const json& a = peak["answers"][0];
  CHECK(a["source"] == "expectation");
  CHECK(a["metric"] == "peak");
  CHECK(a["fidelity"].is_null());  // nothing measured in this store yet
  CHECK(a["fidelity_n"] == 0);
  double lambda_star = a["value"].get<double>();
  CHECK(lambda_star > 0);
  CHECK(lambda_star < peak["saturation_rate"].get<double>());
  // Z-CART with zero training answers the expectation itself.
  REQUIRE(peak["answers"].size() == 2);
  CHECK(peak["answers"][1]["source"] == "zcart");
  CHECK(peak["answers"][1]["value"].get<double>() == Approx(lambda_star));
  CHECK(peak["answers"][1]["fidelity"].is_null());
  CHECK(peak["answers"][1]["fidelity_n"] == 0);
  // The bottleneck is the center with the highest utilization at λ*.
  std::string busiest;
  double most = -1;
  for (const auto& c : peak["centers"]) {
    if (c["utilization"].get<double>() > most) {
      most = c["utilization"].get<double>();
      busiest = c["name"];
    }
  }
  CHECK(peak["bottleneck"] == busiest);

  // At λ* the mean response time is R_sat (40 ms in sim.toml) by definition.
  json resp = with({"--metric", "response", "--rate", std::to_string(lambda_star)});
  CHECK(resp["answers"][0]["value"].get<double>() == Approx(40.0).epsilon(1e-3));
  // Below saturation an open system's throughput is the offered rate; above, λ_max.
  CHECK(with({"--metric", "throughput", "--rate", "10"})["answers"][0]["value"].get<double>() ==
        Approx(10.0));
  double lmax = peak["saturation_rate"].get<double>();
  CHECK(with({"--metric", "throughput", "--rate", std::to_string(lmax * 2)})["answers"][0]["value"]
            .get<double>() == Approx(lmax));
  // Utilization law at a given rate: the disk (15 ms × 0.8 visits over 2 servers) at 50/s is 0.3.
  json at50 = with({"--rate", "50", "--explain"});
  CHECK(at50["at_rate"].get<double>() == Approx(50.0));
  for (const auto& c : at50["centers"]) {
    if (c["name"] == "disk") CHECK(c["utilization"].get<double>() == Approx(50.0 * 0.012 / 2));
  }
  // One closed client with no think time sees the sum of the demands: 0.5 + 1 + 0.8 × 15 ms.
  json one = with({"--metric", "response", "--clients", "1"});
  CHECK(one["answers"][0]["value"].get<double>() == Approx(13.5));
  json x1 = with({"--metric", "throughput", "--clients", "1", "--think", "986.5"});
  CHECK(x1["answers"][0]["value"].get<double>() == Approx(1.0));  // N / (R + Z) = 1 / 1 s
  // The thread pool bounds a closed workload too: one thread serializes 1 + 0.8 × 15 ms, so 50
  // clients get 1000/13 requests/s (not the 166/s of the 2 disks, as when the pool was dropped).
  json serial = run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=2,threads=1",
                          "--metric", "throughput", "--clients", "50", "--think", "0", "--json"});
  CHECK(serial["answers"][0]["value"].get<double>() == Approx(1000 / 13.0).epsilon(1e-9));

  // Text output with --explain names the bottleneck and the utilizations.
  auto text = workbench(
      {"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=2,threads=16", "--explain"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("the bottleneck is " + peak["bottleneck"].get<std::string>()));
  CHECK_THAT(text.out, Catch::Contains("utilization"));
  CHECK_THAT(text.out, Catch::Contains("fidelity unknown"));
  fs::remove_all(dir);
}

TEST_CASE("peak stores the expectation with its result — report puts them side by side") {
  fs::path dir = fresh_dir("report");
  std::string store = (dir / "w.db").string();
  json w =
      run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=8", "--json"});
  json p =
      run_json({"peak", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=8", "--json"});
  REQUIRE(p["status"] == "found");
  json r = run_json({"report", "--config", kSimConfig, "--store", store, "--json"});
  REQUIRE(r["searches"].size() == 1);
  const json& s = r["searches"][0];
  CHECK(s["search_id"] == p["search_id"]);
  CHECK(s["measured"].get<double>() == Approx(p["peak_rate"].get<double>()));
  double expected = w["answers"][0]["value"].get<double>();
  CHECK(s["expected"].get<double>() == Approx(expected));
  double measured = p["peak_rate"].get<double>();
  CHECK(s["gap"].get<double>() == Approx((expected - measured) / measured));
  CHECK(s["bottleneck"] == w["bottleneck"]);
  bool within = std::abs(s["gap"].get<double>()) <= 0.10;
  CHECK(s["within_tolerance"] == within);
  CHECK(r["fidelity_n"] == 1);
  CHECK(r["fidelity"].get<double>() == (within ? 1.0 : 0.0));

  // whatif's fidelity now comes from that measurement.
  json again =
      run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=1,threads=4", "--json"});
  CHECK(again["answers"][0]["fidelity_n"] == 1);
  CHECK(again["answers"][0]["fidelity"].get<double>() == (within ? 1.0 : 0.0));
  // Z-CART learned the one measurement's correction: for that sample it answers what was measured.
  json same =
      run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=8", "--json"});
  REQUIRE(same["answers"].size() >= 2);
  CHECK(same["answers"][1]["source"] == "zcart");
  CHECK(same["answers"][1]["value"].get<double>() == Approx(measured).epsilon(1e-9));
  CHECK(same["answers"][1]["fidelity_n"] == 1);

  auto text = workbench({"report", "--config", kSimConfig, "--store", store});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("disks=3,threads=8"));
  CHECK_THAT(text.out, Catch::Contains("found"));
  fs::remove_all(dir);
}

TEST_CASE("model show on the demo config: workload attributes set the disk's demand per mix") {
  fs::path dir = fresh_dir("show");
  std::string store = (dir / "w.db").string();
  json web = run_json(
      {"model", "show", "--config", kDemoConfig, "--store", store, "--set", "mix=web,disks=4", "--json"});
  json db = run_json(
      {"model", "show", "--config", kDemoConfig, "--store", store, "--set", "mix=db_tp,disks=4", "--json"});
  auto disk = [](const json& j) {
    for (const auto& c : j["centers"]) {
      if (c["name"] == "disk") return c;
    }
    FAIL("no disk center");
    return json();
  };
  CHECK(disk(web)["visits"].get<double>() == Approx(0.9));
  CHECK(disk(web)["configured_demand_ms"].get<double>() == Approx(1.5));
  CHECK(disk(web)["servers"].get<double>() == 4);
  CHECK(disk(web)["calibrated"].is_null());
  CHECK(disk(db)["visits"].get<double>() == Approx(1.0));
  CHECK(disk(db)["configured_demand_ms"].get<double>() == Approx(4.86));
  // Less disk work per request: a higher expected peak.
  CHECK(web["peak_rate"].get<double>() > 2 * db["peak_rate"].get<double>());
  fs::remove_all(dir);
}

TEST_CASE("bad workload attributes give one line naming FILE:LINE:KEY") {
  fs::path dir = fresh_dir("bad");
  std::string store = (dir / "w.db").string();
  std::string demo = read_file(kDemoConfig);
  auto variant = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string text = demo;
    auto pos = text.find(from);
    REQUIRE(pos != std::string::npos);
    text.replace(pos, from.size(), to);
    fs::path p = dir / name;
    std::ofstream(p) << text;
    return p.string();
  };
  auto line_of = [&](const std::string& needle) {
    auto pos = demo.find(needle);
    REQUIRE(pos != std::string::npos);
    return 1 + std::count(demo.begin(), demo.begin() + static_cast<std::ptrdiff_t>(pos), '\n');
  };
  struct Case {
    std::string file;
    std::vector<std::string> set;
    std::string expect;
  };
  int attr_line = static_cast<int>(line_of("disk_ms = { db_tp"));
  std::vector<Case> cases{
      {variant("missing_level.toml", "mail = 1.5, ", ""),
       {"--set", "mix=mail"},
       "missing_level.toml:" + std::to_string(attr_line) +
           ":model.attributes.mix.disk_ms: no value for level 'mail'"},
      {variant("factor_name.toml", "disk_ms = {", "threads = {"),
       {},
       "factor_name.toml:" + std::to_string(attr_line) +
           ":model.attributes.mix.threads: attribute 'threads' has the name of a factor"},
      {variant("unknown_factor.toml", "[model.attributes.mix]", "[model.attributes.workload]"),
       {},
       "unknown_factor.toml:" + std::to_string(line_of("[model.attributes.mix]")) +
           ":model.attributes.workload: 'workload' is not a declared factor"},
      {variant("negative.toml", "specsfs97 = 5 }", "specsfs97 = -5 }"),
       {},
       "negative.toml:" + std::to_string(attr_line) +
           ":model.attributes.mix.disk_ms.specsfs97: must be a finite number >= 0"},
      {variant("unknown_name.toml", "visits = \"{disk_visits}\"", "visits = \"{disk_fraction}\""),
       {},
       "unknown factor 'disk_fraction'"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"whatif", "--config", c.file, "--store", store};
    args.insert(args.end(), c.set.begin(), c.set.end());
    auto r = workbench(args);
    INFO(c.expect << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.expect));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  // [sim] describes what the simulator runs: attributes and visit expressions belong to [model].
  std::string sim = read_file(kSimConfig);
  std::string bad_sim = sim;
  bad_sim.replace(bad_sim.find("visits = 0.8"), 12, "visits = \"{disks}/4\"");
  fs::path p = dir / "sim_visits.toml";
  std::ofstream(p) << bad_sim;
  auto r = workbench({"whatif", "--config", p.string(), "--store", store});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("sim.center[3].visits: must be a number here"));
  fs::remove_all(dir);
}

namespace {

void exec_sql(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
  INFO((err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(h);
  REQUIRE(rc == SQLITE_OK);
}

const json* answer_from(const json& whatif, const std::string& source) {
  for (const auto& a : whatif["answers"]) {
    if (a["source"] == source) return &a;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("inside a finished surface's region whatif also answers from the fitted surface") {
  fs::path dir = fresh_dir("surface");
  std::string store = (dir / "w.db").string();
  // Migrate a fresh store, then record a finished 3x3 surface over disks and threads whose
  // measured λ* are 50 + 20·disks: a quadratic model fits that exactly, so the surface must
  // predict it between the measured points, and every leave-one-out refit too.
  run_json({"whatif", "--config", kSimConfig, "--store", store, "--json"});
  std::string sql =
      "INSERT INTO surfaces (id, testbed, params_key, params_json, status) VALUES (7, 'sim-nfs', 'k', "
      "'{\"factors\":[\"disks\",\"threads\"],\"base\":\"disks=2,threads=16\"}', 'done');";
  int position = 0;
  for (int d : {1, 2, 4}) {
    for (int t : {2, 16, 64}) {
      std::string key = "disks=" + std::to_string(d) + ",threads=" + std::to_string(t);
      std::string js = "{\"disks\":\"" + std::to_string(d) + "\",\"threads\":\"" + std::to_string(t) + "\"}";
      int id = 100 + position;
      sql +=
          "INSERT INTO searches (id, testbed, sample, sample_json, confidence, accuracy, policy, "
          "options_json, status, "
          "peak_rate) VALUES (" +
          std::to_string(id) + ", 'sim-nfs', '" + key + "', '" + js +
          "', 0.95, 0.9, 'binsearch', '{}', 'found', " + std::to_string(50 + 20 * d) + ");";
      sql += "INSERT INTO surface_points (surface_id, position, sample, sample_json, search_id) VALUES (7, " +
             std::to_string(position) + ", '" + key + "', '" + js + "', " + std::to_string(id) + ");";
      ++position;
    }
  }
  exec_sql(store, sql);

  json inside =
      run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=8", "--json"});
  const json* s = answer_from(inside, "surface");
  REQUIRE(s != nullptr);
  CHECK(s->at("metric") == "peak");
  CHECK(s->at("value").get<double>() == Approx(110.0).epsilon(1e-6));
  CHECK(s->at("low").get<double>() <= s->at("value").get<double>());
  CHECK(s->at("high").get<double>() >= s->at("value").get<double>());
  CHECK(s->at("fidelity").get<double>() == Approx(1.0));
  CHECK(s->at("fidelity_n") == 9);
  REQUIRE(answer_from(inside, "expectation") != nullptr);  // the model still answers too

  // Outside the measured range (threads 100 > 64) the surface does not extrapolate.
  json outside = run_json(
      {"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=100", "--json"});
  CHECK(answer_from(outside, "surface") == nullptr);
  // Nor does it answer other metrics.
  json resp = run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=8",
                        "--metric", "response", "--rate", "20", "--json"});
  CHECK(answer_from(resp, "surface") == nullptr);
  fs::remove_all(dir);
}

TEST_CASE("whatif refits a surface with the model, response scale and coding map-surface used") {
  fs::path dir = fresh_dir("surface_options");
  std::string store = (dir / "w.db").string();
  // A finished 3x3 surface mapped with --response reciprocal --coding inverse, whose measured λ*
  // are 1/(0.01 + 0.02/disks): linear in 1/disks on the reciprocal scale, so that fit predicts
  // 60/s at disks=3 exactly. The default quadratic in disks would say 61.1/s there.
  run_json({"whatif", "--config", kSimConfig, "--store", store, "--json"});
  std::string sql =
      "INSERT INTO surfaces (id, testbed, params_key, params_json, status) VALUES (8, 'sim-nfs', 'k', "
      "'{\"factors\":[\"disks\",\"threads\"],\"base\":\"disks=2,threads=16\",\"response\":\"reciprocal\","
      "\"coding\":\"inverse\"}', 'done');";
  auto exact = [](double v) {
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
  };
  int position = 0;
  for (int d : {1, 2, 4}) {
    for (int t : {2, 16, 64}) {
      std::string key = "disks=" + std::to_string(d) + ",threads=" + std::to_string(t);
      std::string js = "{\"disks\":\"" + std::to_string(d) + "\",\"threads\":\"" + std::to_string(t) + "\"}";
      int id = 200 + position;
      sql +=
          "INSERT INTO searches (id, testbed, sample, sample_json, confidence, accuracy, policy, "
          "options_json, status, peak_rate) VALUES (" +
          std::to_string(id) + ", 'sim-nfs', '" + key + "', '" + js +
          "', 0.95, 0.9, 'binsearch', '{}', 'found', " + exact(1.0 / (0.01 + 0.02 / d)) + ");";
      sql += "INSERT INTO surface_points (surface_id, position, sample, sample_json, search_id) VALUES (8, " +
             std::to_string(position) + ", '" + key + "', '" + js + "', " + std::to_string(id) + ");";
      ++position;
    }
  }
  exec_sql(store, sql);
  json inside =
      run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=8", "--json"});
  const json* s = answer_from(inside, "surface");
  REQUIRE(s != nullptr);
  CHECK(s->at("value").get<double>() == Approx(60.0).epsilon(1e-6));
  fs::remove_all(dir);
}

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
