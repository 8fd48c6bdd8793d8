// `workbench peak` and `workbench sim truth` as a user runs them: the real binary, a real store.
#include <signal.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/support/store_rows.hpp"
#include "tests/support/workbench_cli.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using namespace wb::test;

namespace {

wb::test::RunResult workbench(std::vector<std::string> args) {
  return wb::test::run_workbench(std::move(args), 120s);
}

std::string read_file(const fs::path& p) { return wb::test::read_text(p); }

std::string query(const fs::path& db, const std::string& sql) { return wb::test::query_first(db, sql); }

// The trials stored in `store` once there are `n` of them, or after 60 s (fewer then).
int stored_trials_after(const fs::path& store, int n) {
  int stored = 0;
  for (int i = 0; i < 600 && stored < n; ++i) {
    std::this_thread::sleep_for(100ms);
    // (The store exists before its tables do: the migration runs after the file is created.)
    if (fs::exists(store) && !query(store, "SELECT name FROM sqlite_master WHERE name = 'leases'").empty())
      stored = std::atoi(query(store, "SELECT count(*) FROM trials").c_str());
  }
  return stored;
}

}  // namespace

TEST_CASE("peak on the simulated testbed finds a λ* inside the true peak-rate region") {
  fs::path dir = temp_dir("peak_cli", "accept");
  std::string store = (dir / "w.db").string();
  auto r = workbench({"peak", "--config", kSimConfig, "--store", store, "--set", "disks=2,threads=16",
                      "--target", "95/90", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["status"] == "found");
  CHECK(j["sample"]["disks"] == 2);
  CHECK(j["sample"]["threads"] == 16);
  CHECK(j["target"]["confidence"] == Approx(0.95));
  CHECK(j["policy"] == "binsearch");
  REQUIRE(j["loads"].size() >= 2);
  CHECK(j["loads"].back()["verdict"] == "peak");
  CHECK(j["response"]["accuracy"].get<double>() >= 0.9);
  CHECK(j["cost_s"].get<double>() > 0);

  auto t = workbench(
      {"sim", "truth", "--config", kSimConfig, "--store", store, "--set", "disks=2,threads=16", "--json"});
  REQUIRE(t.exit_code == 0);
  auto truth = nlohmann::json::parse(t.out);
  double peak = j["peak_rate"].get<double>();
  INFO("λ* " << peak << " region [" << truth["region_low"] << ", " << truth["region_high"] << "]");
  CHECK(peak >= truth["region_low"].get<double>());
  CHECK(peak <= truth["region_high"].get<double>());

  // Every trial is in the store, under the search the JSON names.
  CHECK(query(store, "SELECT count(*) FROM trials WHERE search_id = " + j["search_id"].dump()) ==
        j["trials"].dump());
  CHECK(query(store, "SELECT status FROM searches") == "found");
  // The truth is cached: the second call answers from the store.
  CHECK(query(store, "SELECT count(*) FROM sim_truths") == "1");
  fs::remove_all(dir);
}

TEST_CASE("the same seed gives identical JSON — another seed gives another search") {
  fs::path dir = temp_dir("peak_cli", "seed");
  auto run = [&](const std::string& name, const std::string& seed) {
    return workbench({"peak", "--config", kSimConfig, "--store", (dir / name).string(), "--set",
                      "disks=3,threads=8", "--seed", seed, "--json"});
  };
  auto a = run("a.db", "17"), b = run("b.db", "17"), c = run("c.db", "18");
  REQUIRE(a.exit_code == 0);
  CHECK(a.out == b.out);
  CHECK(a.out != c.out);
  fs::remove_all(dir);
}

TEST_CASE("bad input gives one clear line, exit 2, and leaves the store untouched") {
  fs::path dir = temp_dir("peak_cli", "bad");
  fs::path store = dir / "w.db";
  // A store with one finished search in it, to prove bad input does not change it.
  REQUIRE(workbench({"peak", "--config", kSimConfig, "--store", store.string(), "--set", "disks=1,threads=1"})
              .exit_code == 0);
  std::string before = read_file(store);

  std::string text = read_file(kSimConfig);
  auto write = [&](const std::string& name, const std::string& body) {
    fs::path p = dir / name;
    std::ofstream(p) << body;
    return p.string();
  };
  std::string malformed =
      write("malformed.toml", text.substr(0, text.find("[peak]")) + "[peak\nr_sat_ms = 40\n");
  std::string no_rsat = write("no_rsat.toml", std::string(text).replace(text.find("r_sat_ms = 40"), 13, ""));
  std::string bad_policy = write("bad_policy.toml", std::string(text).replace(text.find("target = \"95/90\""),
                                                                              16, "policy = \"psychic\""));

  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases{
      {{"--config", malformed}, "malformed.toml:"},
      {{"--config", no_rsat}, "no_rsat.toml:20:peak.r_sat_ms: required key is missing"},
      {{"--config", kSimConfig, "--set", "spindles=2"}, "unknown factor 'spindles'"},
      {{"--config", kSimConfig, "--set", "disks=9"}, "'9' is not a level of factor 'disks'"},
      {{"--config", kSimConfig, "--target", "100/90"}, "less than 100"},
      {{"--config", kSimConfig, "--target", "95-90"}, "e.g. 95/90"},
      {{"--config", kSimConfig, "--policy", "psychic"}, "unknown policy 'psychic'"},
      {{"--config", bad_policy},
       "bad_policy.toml:23:peak.policy: unknown policy 'psychic' (known: binsearch"},
      {{"--config", (dir / "missing.toml").string()}, "missing.toml"},
      {{"--config", kSimConfig, "--frobnicate"}, "frobnicate"},
  };
  for (auto& c : cases) {
    std::vector<std::string> args{"peak", "--store", store.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CHECK(wb::test::check_refused(args, c.expect, 120s).out.empty());
  }
  CHECK(read_file(store) == before);
  // A bad --store path never even gets created for bad input.
  auto r =
      workbench({"peak", "--config", kSimConfig, "--store", (dir / "new.db").string(), "--target", "0/90"});
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(dir / "new.db"));
  fs::remove_all(dir);
}

namespace {

// A copy of the simulated testbed whose trials take real time (long virtual runlengths), so a
// search can be interrupted in the middle.
std::string slow_config(const fs::path& dir) {
  std::string text = read_file(kSimConfig);
  text.replace(text.find("runlength_s = 60"), 16, "runlength_s = 4000");
  fs::path p = dir / "slow.toml";
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST_CASE("killing peak mid-search leaves an intact store holding every completed trial") {
  fs::path dir = temp_dir("peak_cli", "kill");
  fs::path store = dir / "w.db";
  wb::test::ChildProcess child({kWorkbench, "peak", "--config", slow_config(dir), "--store", store.string(),
                                "--set", "disks=4,threads=100", "--verbose"});
  // --verbose logs "trial N stored" to stderr after each trial is committed; read them from the
  // store instead of the pipe so the check does not depend on buffering: wait for 3 trials.
  const int stored = stored_trials_after(store, 3);
  REQUIRE(stored >= 3);
  child.send_signal(SIGKILL);
  REQUIRE(child.wait_exit(10s).has_value());
  std::string log = child.drain_stderr();
  int logged = static_cast<int>(std::count(log.begin(), log.end(), '\n'));
  CHECK(query(store, "PRAGMA integrity_check") == "ok");
  int kept = std::atoi(query(store, "SELECT count(*) FROM trials").c_str());
  CHECK(kept >= logged);  // every trial reported as stored is there
  CHECK(kept >= stored);
  CHECK(query(store, "SELECT status FROM searches") == "running");
  fs::remove_all(dir);
}

TEST_CASE("Ctrl-C stops peak with exit 130 and leaves the search interrupted, to be resumed") {
  fs::path dir = temp_dir("peak_cli", "sigint");
  fs::path store = dir / "w.db";
  wb::test::ChildProcess child({kWorkbench, "peak", "--config", slow_config(dir), "--store", store.string(),
                                "--set", "disks=4,threads=100"});
  const int stored = stored_trials_after(store, 1);
  REQUIRE(stored >= 1);
  child.send_signal(SIGINT);
  auto code = child.wait_exit(30s);
  REQUIRE(code.has_value());
  CHECK(*code == 130);
  CHECK_THAT(child.drain_stderr(), Catch::Contains("interrupted"));
  CHECK(query(store, "SELECT status FROM searches") == "interrupted");
  CHECK(query(store, "SELECT count(*) FROM leases") == "0");
  CHECK(query(store, "PRAGMA integrity_check") == "ok");
  fs::remove_all(dir);
}
