// `workbench peak --policy ... --seeding` end to end: the real binary, a real store holding
// earlier searches of the same testbed.
#include <sqlite3.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "policies/curve_fit.hpp"
#include "policies/search.hpp"
#include "tests/support/store_rows.hpp"
#include "tests/support/workbench_cli.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using wb::test::kSimConfig;

namespace {

wb::test::RunResult workbench(std::vector<std::string> args) {
  return wb::test::run_workbench(std::move(args), 120s);
}

std::string query(const fs::path& db, const std::string& sql) { return wb::test::query_first(db, sql); }

// The loads of a stored search, read back from its trials (rate, mean response times, and whether
// saturated by trial_saturated at the default [peak] limits, which the test configs keep).
std::vector<wb::TestLoad> stored_loads(const fs::path& db, long search_id) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  const std::string sql =
      "SELECT load_index, rate, mean_ms, sent, completed, errors, achieved_rate, runlength_s FROM trials "
      "WHERE search_id = " +
      std::to_string(search_id) + " ORDER BY id";
  REQUIRE(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  std::vector<wb::TestLoad> loads;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (loads.empty() || static_cast<int>(loads.size()) - 1 != sqlite3_column_int(st, 0)) {
      loads.emplace_back();
      loads.back().rate = sqlite3_column_double(st, 1);
    }
    wb::TrialResult t;
    t.mean_ms = sqlite3_column_double(st, 2);
    t.sent = static_cast<std::uint64_t>(sqlite3_column_int64(st, 3));
    t.completed = static_cast<std::uint64_t>(sqlite3_column_int64(st, 4));
    t.errors = static_cast<std::uint64_t>(sqlite3_column_int64(st, 5));
    t.offered_rate = loads.back().rate;
    t.achieved_rate = sqlite3_column_double(st, 6);
    t.runlength_s = sqlite3_column_double(st, 7);
    loads.back().saturated = loads.back().saturated || wb::trial_saturated(t, wb::PeakConfig{});
    loads.back().trials.push_back(t);
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return loads;
}

// The expectation model's λ* for a sample, as `workbench whatif` reports it.
double expected_peak(const std::string& config, const std::string& set) {
  auto w =
      workbench({"whatif", "--config", config, "--set", set, "--json", "--store",
                 (fs::temp_directory_path() / ("wb_policies_cli_whatif_" + std::to_string(getpid()) + ".db"))
                     .string()});
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  const auto j = nlohmann::json::parse(w.out);
  for (const auto& a : j["answers"]) {
    if (a["source"] == "expectation") return a["value"].get<double>();
  }
  FAIL("whatif gave no expectation answer: " << w.out);
  return 0;
}

}  // namespace

TEST_CASE(
    "peak --policy model-safe --seeding starts at the centre of the nearest earlier sample's region, scaled "
    "by "
    "the model") {
  fs::path dir = fs::temp_directory_path() / ("wb_policies_cli_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path store = dir / "w.db";

  // Earlier searches on this testbed: two samples.
  auto a = workbench(
      {"peak", "--config", kSimConfig, "--store", store.string(), "--set", "disks=2,threads=16", "--json"});
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  double near_peak = nlohmann::json::parse(a.out)["peak_rate"].get<double>();
  auto b = workbench(
      {"peak", "--config", kSimConfig, "--store", store.string(), "--set", "disks=4,threads=100", "--json"});
  REQUIRE(b.exit_code == 0);
  double far_peak = nlohmann::json::parse(b.out)["peak_rate"].get<double>();
  REQUIRE(far_peak != near_peak);

  // disks=2,threads=32 is one level from (2, 16) and far from (4, 100). configs/sim.toml has a
  // [model], so the seed is the centre of (2, 16)'s region (where the curve through its claimed
  // load, with the elasticity of the curve fitted to its loads, reaches R_sat = 40 ms; width 0.1)
  // times the model's λ*(2, 32) / λ*(2, 16).
  const auto near_loads = stored_loads(store, nlohmann::json::parse(a.out)["search_id"].get<long>());
  const double elasticity = wb::response_elasticity(near_loads, near_peak, 40).value_or(0);
  REQUIRE(elasticity > 0);
  const double centre = wb::region_centre(near_loads, near_peak, 40, 0.1, elasticity);
  CHECK(std::abs(centre / near_peak - 1) <= 0.1 / elasticity + 1e-12);
  const double seed = centre * expected_peak(kSimConfig, "disks=2,threads=32") /
                      expected_peak(kSimConfig, "disks=2,threads=16");
  auto r =
      workbench({"peak", "--config", kSimConfig, "--store", store.string(), "--set", "disks=2,threads=32",
                 "--policy", "model-safe", "--seeding", "--runlength", "adaptive", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["status"] == "found");
  CHECK(j["policy"] == "model-safe");
  REQUIRE(j["loads"].size() >= 1);
  CHECK(j["loads"][0]["rate"].get<double>() == Approx(seed));
  REQUIRE(j["peak_interval"].is_object());
  double peak = j["peak_rate"].get<double>();
  CHECK(j["peak_interval"]["low"].get<double>() <= peak);
  if (j["peak_interval"]["high"].is_number()) {
    CHECK(j["peak_interval"]["high"].get<double>() >= peak);
  } else {
    // Unbounded only when no load above λ* was tried and no curve could be fitted (one load).
    CHECK(j["peak_interval"]["high"].is_null());
    CHECK(j["loads"].size() == 1);
  }
  // The store records where the search started and how.
  auto opts = nlohmann::json::parse(query(
      store, "SELECT options_json FROM searches WHERE id = " + std::to_string(j["search_id"].get<long>())));
  CHECK(opts["seeding"] == true);
  CHECK(opts["start_rate"].get<double>() == Approx(seed));
  CHECK(opts["seed_elasticity"].get<double>() == Approx(elasticity));
  CHECK(opts["runlength"] == "adaptive");

  // Without earlier searches of the testbed, --seeding starts at the model's λ* ...
  fs::path empty = dir / "empty.db";
  auto e = workbench({"peak", "--config", kSimConfig, "--store", empty.string(), "--set",
                      "disks=2,threads=32", "--policy", "model-safe", "--seeding", "--json"});
  REQUIRE(e.exit_code == 0);
  CHECK(nlohmann::json::parse(e.out)["loads"][0]["rate"].get<double>() ==
        Approx(expected_peak(kSimConfig, "disks=2,threads=32")));

  // ... and, with no [model] either, at [peak] start_rate; with earlier searches, at the centre of
  // the nearest sample's region as measured.
  fs::path no_model = dir / "sim-no-model.toml";
  {
    std::ifstream in(kSimConfig);
    std::ofstream out(no_model);
    std::string line;
    while (std::getline(in, line) && line.rfind("[[model.", 0) != 0 && line.rfind("[model", 0) != 0)
      out << line << "\n";
  }
  fs::path bare = dir / "bare.db";
  auto f = workbench({"peak", "--config", no_model.string(), "--store", bare.string(), "--set",
                      "disks=2,threads=32", "--policy", "model-safe", "--seeding", "--json"});
  INFO(f.err);
  REQUIRE(f.exit_code == 0);
  auto fj = nlohmann::json::parse(f.out);
  CHECK(fj["loads"][0]["rate"].get<double>() == Approx(50));
  const auto f_loads = stored_loads(bare, fj["search_id"].get<long>());
  const double f_peak = fj["peak_rate"].get<double>();
  const double f_centre =
      wb::region_centre(f_loads, f_peak, 40, 0.1, wb::response_elasticity(f_loads, f_peak, 40).value_or(0));
  auto g = workbench({"peak", "--config", no_model.string(), "--store", bare.string(), "--set",
                      "disks=2,threads=64", "--policy", "model-safe", "--seeding", "--json"});
  REQUIRE(g.exit_code == 0);
  CHECK(nlohmann::json::parse(g.out)["loads"][0]["rate"].get<double>() == Approx(f_centre));
  fs::remove_all(dir);
}

TEST_CASE("peak --help explains every policy — an unknown policy or runlength is a usage error") {
  auto h = workbench({"peak", "--help"});
  REQUIRE(h.exit_code == 0);
  for (const char* p :
       {"binsearch:", "linear:", "strawman:", "model:", "model-safe:", "--seeding", "--runlength"}) {
    CHECK(h.out.find(p) != std::string::npos);
  }
  auto bad = workbench({"peak", "--config", kSimConfig, "--store", "/nonexistent/x.db", "--policy", "magic"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("binsearch") != std::string::npos);
  auto bad_r =
      workbench({"peak", "--config", kSimConfig, "--store", "/nonexistent/x.db", "--runlength", "often"});
  CHECK(bad_r.exit_code == 2);
}
