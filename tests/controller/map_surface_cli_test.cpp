// `workbench map-surface` as a user runs it: the real binary, a real store, the simulated testbed.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "tests/support/store_query.hpp"
#include "tests/support/workbench_cli.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using namespace wb::test;

namespace {

wb::test::RunResult workbench(std::vector<std::string> args) {
  return wb::test::run_workbench(std::move(args), 300s);
}

// map-surface over disks and threads of configs/sim.toml into the store `dir`/w.db, with `more`
// arguments.
wb::test::RunResult map_surface_sim(const fs::path& dir, const std::vector<std::string>& more) {
  std::vector<std::string> args{"map-surface",           "--config",  kSimConfig,     "--store",
                                (dir / "w.db").string(), "--factors", "disks,threads"};
  args.insert(args.end(), more.begin(), more.end());
  return workbench(args);
}

}  // namespace

TEST_CASE("map-surface --json: every candidate sample, the measured ones with λ*, the fit and the cost") {
  fs::path dir = temp_dir("map_surface_cli", "json");
  auto r = map_surface_sim(dir, {"--design", "dopt", "--points", "8", "--model", "quadratic", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["status"] == "done");
  CHECK(j["factors"] == nlohmann::json({"disks", "threads"}));
  CHECK(j["design"]["kind"] == "dopt");
  CHECK(j["design"]["points"] == 8);
  CHECK(j["design"]["D"].get<double>() > 0);
  CHECK(j["design"]["d_efficiency"].get<double>() > 0);
  CHECK(j["design"]["d_efficiency"].get<double>() <= 1);
  REQUIRE(j["samples"].size() == 32);
  int measured = 0;
  double sum_measured = 0, sum_fitted = 0;
  std::set<std::pair<double, double>> levels;
  for (const auto& s : j["samples"]) {
    levels.insert({s["sample"]["disks"].get<double>(), s["sample"]["threads"].get<double>()});
    REQUIRE(s["predicted"].is_number());
    CHECK(s["predicted"].get<double>() > 0);
    if (s["measured"].get<bool>()) {
      ++measured;
      REQUIRE(s["peak_rate"].is_number());
      CHECK(s["search_id"].is_number());
      sum_measured += s["peak_rate"].get<double>();
      sum_fitted += s["predicted"].get<double>();
    } else {
      CHECK(s["peak_rate"].is_null());
      CHECK(s["search_id"].is_null());
    }
  }
  CHECK(measured == 8);
  CHECK(levels.size() == 32);
  // Least squares with an intercept: the residuals at the fitted points sum to zero.
  CHECK(sum_fitted == Approx(sum_measured).epsilon(1e-9));
  REQUIRE(j["fit"].is_object());
  CHECK(j["fit"]["terms"].size() == 6);
  CHECK(j["fit"]["coefficients"].size() == 6);
  CHECK(j["fit"]["selected"] == false);
  CHECK(j["fit"]["anchored"] == false);
  CHECK(j["fit"]["r2"].get<double>() > 0.8);
  CHECK(j["fit"]["r2"].get<double>() <= 1);
  REQUIRE(j["fit"]["mape_loo"].is_number());  // 8 points, 6 terms: not saturated
  CHECK(j["fit"]["mape_loo"].get<double>() >= 0);
  CHECK(j["cost_s"].get<double>() > 0);
  CHECK(j["wall_s"].get<double>() == Approx(j["cost_s"].get<double>()));  // one slot
  CHECK(j["this_run"]["trials_replayed"] == 0);
  CHECK(j["this_run"]["trials_run"] == j["trials"]);

  // A saturated design (6 points for 6 terms) fits exactly and has no LOO MAPE.
  auto s6 = map_surface_sim(dir, {"--points", "6", "--model", "quadratic", "--json"});
  REQUIRE(s6.exit_code == 0);
  auto j6 = nlohmann::json::parse(s6.out);
  CHECK(j6["fit"]["mape_loo"].is_null());
  CHECK(j6["surface_id"] != j["surface_id"]);
}

TEST_CASE("map-surface chooses its class by default: anchored to a [model] that is right") {
  fs::path dir = temp_dir("map_surface_cli", "auto");
  auto r = map_surface_sim(dir, {"--points", "8", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["fit"].is_object());
  CHECK(j["fit"]["selected"] == true);
  // configs/sim.toml's [model] is its simulator's network: the deviation is measurement noise.
  CHECK(j["fit"]["anchored"] == true);
  REQUIRE(j["fit"]["cv_mape"].is_number());
  CHECK(j["fit"]["cv_mape"].get<double>() < 3);
  CHECK(j["fit"]["class"].get<std::string>().find("anchored") == 0);
  REQUIRE(j["fit"]["runner_up"].is_object());
  CHECK(j["fit"]["runner_up"]["cv_mape"].get<double>() >= 0);
  CHECK(j["fit"]["classes_ranked"].get<int>() > 10);
  for (const auto& s : j["samples"]) {
    if (s["measured"].get<bool>())
      CHECK(s["predicted"].get<double>() == Approx(s["peak_rate"].get<double>()).epsilon(0.05));
  }

  // The same command on the finished surface reports it without measuring: no trial is stored.
  const std::string store = (dir / "w.db").string();
  const auto trials_before = query(store, "SELECT COUNT(*) FROM trials");
  auto again = map_surface_sim(dir, {"--points", "8", "--json"});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("without measuring again") != std::string::npos);
  auto j2 = nlohmann::json::parse(again.out);
  CHECK(j2["surface_id"] == j["surface_id"]);
  CHECK(j2["this_run"]["trials_run"] == 0);
  CHECK(j2["fit"]["class"] == j["fit"]["class"]);
  CHECK(query(store, "SELECT COUNT(*) FROM trials") == trials_before);
  CHECK(query(store, "SELECT COUNT(*) FROM surfaces") == std::vector<std::string>{"1"});
}

TEST_CASE("a surface over a categorical factor: measured per level, predicted between the thread levels") {
  // configs/sim-fs.toml: the filesystem (ext4, xfs, btrfs) changes the disks' and CPUs' work.
  fs::path dir = temp_dir("map_surface_cli", "categorical");
  const std::string config = std::string(WB_SOURCE_DIR) + "/configs/sim-fs.toml";
  const std::string store = (dir / "w.db").string();
  auto r =
      workbench({"map-surface", "--config", config, "--store", store, "--factors", "threads,fs", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["status"] == "done");
  REQUIRE(j["samples"].size() == 21);
  std::map<std::string, int> measured;
  for (const auto& s : j["samples"]) {
    REQUIRE(s["sample"]["fs"].is_string());
    REQUIRE(s["predicted"].is_number());
    if (s["measured"].get<bool>()) {
      ++measured[s["sample"]["fs"].get<std::string>()];
      CHECK(s["predicted"].get<double>() == Approx(s["peak_rate"].get<double>()).epsilon(0.10));
    }
  }
  CHECK(measured.size() == 3);
  REQUIRE(j["fit"].is_object());
  INFO(j["fit"].dump());
  REQUIRE(j["fit"]["cv_mape"].is_number());
  CHECK(j["fit"]["cv_mape"].get<double>() < 10);

  // A fixed class without the anchor gives each filesystem its own intercept and slope: its
  // design measures every level again, from the searches above where it can.
  auto fixed = workbench({"map-surface", "--config", config, "--store", store, "--factors", "threads,fs",
                          "--model", "interactions", "--response", "log", "--json"});
  INFO(fixed.err);
  REQUIRE(fixed.exit_code == 0);
  auto jf = nlohmann::json::parse(fixed.out);
  CHECK(jf["fit"]["terms"] ==
        nlohmann::json({"1", "threads", "fs=xfs", "fs=btrfs", "fs=xfs*threads", "fs=btrfs*threads"}));
  CHECK(jf["fit"]["class"].get<std::string>().find("per fs") != std::string::npos);
  CHECK(jf["this_run"]["searches_reused"].get<int>() >= 1);

  // whatif answers from the surface at a level and a thread count nobody measured, and the answer
  // is near the simulation's truth there.
  for (const std::string set : {"fs=btrfs,threads=12", "fs=xfs,threads=3"}) {
    auto w = workbench({"whatif", "--config", config, "--store", store, "--set", set, "--json"});
    REQUIRE(w.exit_code == 0);
    auto t = workbench({"sim", "truth", "--config", config, "--store", store, "--set", set, "--json"});
    REQUIRE(t.exit_code == 0);
    const double truth = nlohmann::json::parse(t.out)["peak_rate"].get<double>();
    const auto answers = nlohmann::json::parse(w.out)["answers"];
    std::optional<double> surface;
    for (const auto& a : answers)
      if (a["source"] == "surface") surface = a["value"].get<double>();
    INFO(set << ": truth " << truth << "\n" << w.out);
    REQUIRE(surface);
    CHECK(*surface == Approx(truth).epsilon(0.10));
  }
  // A level the factor does not declare is an input error naming it.
  auto bad = workbench({"whatif", "--config", config, "--store", store, "--set", "fs=zfs", "--json"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("zfs") != std::string::npos);
}

TEST_CASE("a surface with a sample whose search found no λ* is incomplete: exit 1, and it says which") {
  fs::path dir = temp_dir("map_surface_cli", "incomplete");
  // Six loads are too few for most searches here: they end not-found.
  std::string text = read_text(kSimConfig);
  const std::string key = "max_loads = 40";
  REQUIRE(text.find(key) != std::string::npos);
  text.replace(text.find(key), key.size(), "max_loads = 6");
  const std::string config = (dir / "sim.toml").string();
  std::ofstream(config) << text;
  auto r = workbench({"map-surface", "--config", config, "--store", (dir / "w.db").string(), "--factors",
                      "disks,threads", "--points", "8", "--json"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["incomplete"] == true);
  REQUIRE(!j["missing"].empty());
  int measured = 0;
  for (const auto& s : j["samples"]) measured += s["measured"].get<bool>() ? 1 : 0;
  CHECK(measured + j["missing"].size() == 8);
  for (const auto& m : j["missing"]) {
    CHECK(m["search_status"] == "not-found");
    CHECK(m["search_id"].is_number());
    CHECK(m["sample"]["disks"].is_number());
  }
  CHECK(j["design"]["measured_D"].get<double>() < j["design"]["D"].get<double>());
  // The text report names each sample without a λ*.
  auto text_run = workbench({"map-surface", "--config", config, "--store", (dir / "w.db").string(),
                             "--factors", "disks,threads", "--points", "8"});
  CHECK(text_run.exit_code == 1);
  CHECK(text_run.out.find("incomplete: " + std::to_string(j["missing"].size()) + " of 8 samples") !=
        std::string::npos);
  CHECK(text_run.out.find("not-found)") != std::string::npos);
}

TEST_CASE("with a target error map-surface adds D-optimal samples until the fit reaches it") {
  fs::path dir = temp_dir("map_surface_cli", "target");
  // Without a [model] the six design points leave every class's cross-validated error far above 8 %.
  const fs::path config = slow_sim_config(dir, 60, true);
  const std::string store = (dir / "w.db").string();
  std::vector<std::string> args{"map-surface", "--config",      config.string(), "--store", store,
                                "--factors",   "disks,threads", "--points",      "6",       "--target-error",
                                "8",           "--json"};
  auto r = workbench(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  const int added = j["added"].get<int>();
  CHECK(added > 0);
  CHECK(r.err.find("adding disks=") != std::string::npos);
  int measured = 0;
  for (const auto& s : j["samples"]) measured += s["measured"].get<bool>() ? 1 : 0;
  CHECK(measured == 6 + added);
  REQUIRE(j["fit"]["cv_mape"].is_number());
  // It stops at the target, or when every sample is measured.
  CHECK((j["fit"]["cv_mape"].get<double>() <= 8 || measured == 32));
  CHECK(query(store, "SELECT COUNT(*) FROM surface_points")[0] == std::to_string(6 + added));

  // The same command again finds the target met (or nothing left): nothing more is measured.
  const auto trials = query(store, "SELECT COUNT(*) FROM trials");
  auto again = workbench(args);
  REQUIRE(again.exit_code == 0);
  CHECK(nlohmann::json::parse(again.out)["added"] == 0);
  CHECK(query(store, "SELECT COUNT(*) FROM trials") == trials);

  auto bad = workbench({"map-surface", "--config", config.string(), "--store", (dir / "x.db").string(),
                        "--factors", "disks,threads", "--target-error", "-1"});
  CHECK(bad.exit_code == 2);
  CHECK_FALSE(fs::exists(dir / "x.db"));
}

TEST_CASE("a changed design measures only the samples no search of the same request measured") {
  fs::path dir = temp_dir("map_surface_cli", "reuse");
  const std::string store = (dir / "w.db").string();
  auto searched = [](const nlohmann::json& j) {
    std::map<std::string, std::int64_t> out;  // sample -> search
    for (const auto& s : j["samples"])
      if (s["measured"].get<bool>()) out[s["sample"].dump()] = s["search_id"].get<std::int64_t>();
    return out;
  };
  auto a = map_surface_sim(dir, {"--points", "6", "--json"});
  REQUIRE(a.exit_code == 0);
  auto b = map_surface_sim(dir, {"--points", "8", "--json"});
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  CHECK(ja["surface_id"] != jb["surface_id"]);
  const auto sa = searched(ja), sb = searched(jb);
  REQUIRE(sb.size() == 8);
  int shared = 0;
  for (const auto& [sample, id] : sb) {
    if (sa.count(sample) == 0) continue;
    ++shared;
    CHECK(id == sa.at(sample));  // the same search, not a new one
  }
  REQUIRE(shared >= 1);
  CHECK(jb["this_run"]["searches_reused"] == shared);
  CHECK(query(store, "SELECT COUNT(*) FROM searches") ==
        std::vector<std::string>{std::to_string(6 + 8 - shared)});
  CHECK(b.err.find("which measured it with the same settings") != std::string::npos);
  // Reused searches cost the new surface no testbed time.
  double own_cost = 0;
  for (const auto& s : jb["samples"]) {
    if (s["measured"].get<bool>() && sa.count(s["sample"].dump()) == 0) {
      own_cost += std::stod(query(store, "SELECT cost_s FROM searches WHERE id = " +
                                             std::to_string(s["search_id"].get<std::int64_t>()))[0]);
    }
  }
  CHECK(jb["wall_s"].get<double>() == Approx(own_cost));

  // Another noise seed is another request: the same design (configs/sim.toml's seed is 1) is
  // measured anew.
  auto c = map_surface_sim(dir, {"--points", "8", "--seed", "5", "--design-seed", "1", "--json"});
  REQUIRE(c.exit_code == 0);
  auto jc = nlohmann::json::parse(c.out);
  CHECK(jc["this_run"]["searches_reused"] == 0);
  const auto sc = searched(jc);
  REQUIRE(sc.size() == 8);
  for (const auto& [sample, id] : sc) {
    REQUIRE(sb.count(sample) == 1);
    CHECK(id != sb.at(sample));
  }
}

TEST_CASE("the design's seed and the simulated noise's seed are set apart") {
  fs::path dir = temp_dir("map_surface_cli", "seeds");
  auto measured = [](const nlohmann::json& j) {
    std::map<std::string, double> out;
    for (const auto& s : j["samples"]) {
      if (s["measured"].get<bool>()) out[s["sample"].dump()] = s["peak_rate"].get<double>();
    }
    return out;
  };
  auto a = map_surface_sim(dir, {"--points", "6", "--seed", "1", "--json"});
  auto b = map_surface_sim(dir, {"--points", "6", "--seed", "2", "--design-seed", "1", "--json"});
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  CHECK(ja["surface_id"] != jb["surface_id"]);
  auto ma = measured(ja), mb = measured(jb);
  REQUIRE(ma.size() == 6);
  std::vector<std::string> ka, kb;
  for (const auto& [k, v] : ma) ka.push_back(k);
  for (const auto& [k, v] : mb) kb.push_back(k);
  CHECK(ka == kb);  // the same design
  CHECK(ma != mb);  // other noise: other measured λ*
}

TEST_CASE("map-surface human output: the λ* table with measured cells starred, coefficients, MAPE, cost") {
  fs::path dir = temp_dir("map_surface_cli", "human");
  auto r = map_surface_sim(dir, {"--points", "8", "--parallel", "2", "--seeding"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("disks\\threads") != std::string::npos);
  std::size_t stars = 0;  // measured cells: a number followed by '*'
  for (std::size_t p = r.out.find('*'); p != std::string::npos; p = r.out.find('*', p + 1)) {
    if (p > 0 && std::isdigit(static_cast<unsigned char>(r.out[p - 1])) != 0) ++stars;
  }
  CHECK(stars == 8);
  CHECK(r.out.find("model: anchored") != std::string::npos);  // --model auto chose an anchored class
  CHECK(r.out.find("chosen by leave-one-out error") != std::string::npos);
  CHECK(r.out.find("runner-up: ") != std::string::npos);
  CHECK(r.out.find("LOO MAPE") != std::string::npos);
  CHECK(r.out.find("on 2 slots") != std::string::npos);
  CHECK(r.err.find("slot 1:") != std::string::npos);  // both slots ran searches
}

TEST_CASE("map-surface rejects bad input before it touches the store") {
  fs::path dir = temp_dir("map_surface_cli", "bad");
  fs::path store = dir / "w.db";
  auto r1 = workbench(
      {"map-surface", "--config", kSimConfig, "--store", store.string(), "--factors", "disks,nope"});
  CHECK(r1.exit_code == 2);
  CHECK(r1.err.find("nope") != std::string::npos);
  auto r2 = workbench({"map-surface", "--config", kSimConfig, "--store", store.string(), "--factors",
                       "disks,threads", "--points", "5"});
  CHECK(r2.exit_code == 2);
  CHECK(r2.err.find("--points") != std::string::npos);
  auto r3 = workbench({"map-surface", "--config", kSimConfig, "--store", store.string(), "--factors",
                       "disks,threads", "--design", "ccd"});
  CHECK(r3.exit_code == 2);
  auto r4 = workbench({"map-surface", "--config", kSimConfig, "--store", store.string(), "--factors",
                       "disks,threads", "--policy", "nosuch"});
  CHECK(r4.exit_code == 2);
  // A real testbed without [[slots]] runs one search at a time.
  auto r5 = workbench({"map-surface", "--config", kDemoConfig, "--store", store.string(), "--factors",
                       "threads,disks", "--parallel", "2"});
  CHECK(r5.exit_code == 2);
  CHECK(r5.err.find("slots") != std::string::npos);
  CHECK_FALSE(fs::exists(store));
}

TEST_CASE("map-surface with a budget stops early with status budget, and the same command continues it") {
  fs::path dir = temp_dir("map_surface_cli", "budget");
  std::string store = (dir / "w.db").string();
  std::vector<std::string> args{"map-surface",   "--config", kSimConfig, "--store", store,     "--factors",
                                "disks,threads", "--points", "8",        "--json",  "--budget"};
  auto r = workbench([&] {
    auto a = args;
    a.push_back("0.5");
    return a;
  }());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["status"] == "budget");
  int started = 0;
  for (const auto& s : j["samples"]) started += s["search_id"].is_null() ? 0 : 1;
  CHECK(started >= 1);
  CHECK(started < 8);
  CHECK(j["cost_s"].get<double>() >= 1800);

  auto r2 = workbench([&] {
    auto a = args;
    a.push_back("1000");
    return a;
  }());
  REQUIRE(r2.exit_code == 0);
  auto j2 = nlohmann::json::parse(r2.out);
  CHECK(j2["surface_id"] == j["surface_id"]);
  CHECK(j2["status"] == "done");
  CHECK(j2["this_run"]["trials_run"].get<int>() + j["this_run"]["trials_run"].get<int>() ==
        j2["trials"].get<int>());
}
