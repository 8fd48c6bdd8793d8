// `workbench whatif`, `model show` and `report` as a user runs them, on the simulated testbed: the
// real binary, a real store. The expectation is checked against the simulation's own truth, the
// operational laws, and what `peak` measures.
#include <sqlite3.h>
#include <catch2/catch.hpp>

#include <functional>

#include "tests/controller/whatif_cli_support.hpp"

using namespace wb::test::whatif_cli;
using wb::test::run_to_exit;

TEST_CASE("whatif's λ* on the simulated testbed is within 10% of the simulated truth") {
  fs::path dir = fresh_dir("truth");
  std::string store = (dir / "w.db").string();
  // threads=48 and 6 lie between the declared levels: both commands answer there too.
  for (std::string set : {"disks=2,threads=16", "disks=4,threads=4", "disks=1,threads=100",
                          "disks=3,threads=48", "disks=4,threads=6"}) {
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
    wb::test::check_refused(args, c.expect, 120s);
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

// A finished 3x3 surface over disks {1, 2, 4} and threads {2, 16, 64} (`params` added to its
// params_json), its searches (ids from first_id on, found at peak_rate(disks)) and points, as
// INSERT statements.
std::string surface_sql(int surface_id, const std::string& params, int first_id,
                        const std::function<std::string(int)>& peak_rate) {
  std::string sql =
      "INSERT INTO surfaces (id, testbed, params_key, params_json, status) VALUES (" +
      std::to_string(surface_id) +
      ", 'sim-nfs', 'k', '{\"factors\":[\"disks\",\"threads\"],\"base\":\"disks=2,threads=16\"" + params +
      "}', 'done');";
  int position = 0;
  for (int d : {1, 2, 4}) {
    for (int t : {2, 16, 64}) {
      std::string key = "disks=" + std::to_string(d) + ",threads=" + std::to_string(t);
      std::string js = "{\"disks\":\"" + std::to_string(d) + "\",\"threads\":\"" + std::to_string(t) + "\"}";
      int id = first_id + position;
      sql +=
          "INSERT INTO searches (id, testbed, sample, sample_json, confidence, accuracy, policy, "
          "options_json, status, peak_rate) VALUES (" +
          std::to_string(id) + ", 'sim-nfs', '" + key + "', '" + js +
          "', 0.95, 0.9, 'binsearch', '{}', 'found', " + peak_rate(d) + ");";
      sql += "INSERT INTO surface_points (surface_id, position, sample, sample_json, search_id) VALUES (" +
             std::to_string(surface_id) + ", " + std::to_string(position) + ", '" + key + "', '" + js +
             "', " + std::to_string(id) + ");";
      ++position;
    }
  }
  return sql;
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
  std::string sql = surface_sql(7, "", 100, [](int d) { return std::to_string(50 + 20 * d); });
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

  // Between the declared levels (threads 48 is none) every source answers, the surface too.
  json between =
      run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=48", "--json"});
  CHECK(between["sample"]["threads"] == 48);
  CHECK(between["extrapolation"].empty());
  const json* sb = answer_from(between, "surface");
  REQUIRE(sb != nullptr);
  CHECK(sb->at("value").get<double>() == Approx(110.0).epsilon(1e-6));
  REQUIRE(answer_from(between, "expectation") != nullptr);
  CHECK(answer_from(between, "expectation")->at("value").get<double>() > 0);
  REQUIRE(answer_from(between, "zcart") != nullptr);

  // Beyond the declared levels the expectation answers and the result says it extrapolates.
  json beyond = run_json(
      {"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=200", "--json"});
  REQUIRE(beyond["extrapolation"].size() == 1);
  CHECK(beyond["extrapolation"][0].get<std::string>().find("threads=200") == 0);
  CHECK(answer_from(beyond, "surface") == nullptr);

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
  auto exact = [](double v) {
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
  };
  std::string sql = surface_sql(8, ",\"response\":\"reciprocal\",\"coding\":\"inverse\"", 200,
                                [&](int d) { return exact(1.0 / (0.01 + 0.02 / d)); });
  exec_sql(store, sql);
  json inside =
      run_json({"whatif", "--config", kSimConfig, "--store", store, "--set", "disks=3,threads=8", "--json"});
  const json* s = answer_from(inside, "surface");
  REQUIRE(s != nullptr);
  CHECK(s->at("value").get<double>() == Approx(60.0).epsilon(1e-6));
  fs::remove_all(dir);
}
