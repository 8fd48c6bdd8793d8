// configs/postgres.toml as shipped (its port and shorter trials aside): PostgreSQL 15 started per
// sample in a scratch folder by configs/postgres/start.sh, pgbench at a Poisson rate through its
// adapter. `workbench trial` and a short `workbench peak` run, then `model calibrate --method fit`
// on what they measured; the scratch cluster and every process are gone afterwards.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "testbed_support.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using wb::test::kWorkbench;

// Replaces the line starting with `key = ` by `key = value`.
void set_line(std::string& text, const std::string& key, const std::string& value) {
  auto at = text.find("\n" + key + " = ");
  REQUIRE(at != std::string::npos);
  auto end = text.find('\n', at + 1);
  text.replace(at + 1, end - at - 1, key + " = " + value);
}

// The shipped config with 1 s trials (pgbench runs 2 s with warm-up and timeout), few loads and a
// small database.
std::string postgres_config(const fs::path& dir, int port) {
  std::string path = wb::test::shipped_config_copy("postgres.toml", dir, port);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  set_line(text, "runlength_s", "1");
  set_line(text, "max_loads", "7");
  // A smaller pgbench database than the shipped scale 16: each of the test's two server starts loads
  // it.
  auto at = text.find(" 40 16\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 7, " 40 4\"");
  set_line(text, "max_trials", "5");
  set_line(text, "target", "\"90/60\"");
  set_line(text, "warmup_s", "0.5");
  set_line(text, "timeout_s", "0.5");
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("PostgreSQL with pgbench: trial and a short peak through the pgbench adapter") {
  fs::path dir = wb::test::fresh_dir("postgres");
  int port = wb::test::free_port();
  std::string config = postgres_config(dir, port);
  fs::path store = dir / "pg.db";

  auto trial =
      wb::test::run_to_exit({kWorkbench, "trial", "--config", config, "--store", store.string(), "--set",
                             "clients=4", "--rate", "100", "--trials", "2", "--runlength", "1"},
                            180s);
  INFO(trial.err);
  // Exit 1 is a mismatch with configs/postgres.toml's [model], which is not calibrated to this machine.
  REQUIRE((trial.exit_code == 0 || trial.exit_code == 1));
  CHECK_THAT(trial.out, Catch::Contains("fixed-rate run 1 of clients=4,shared_buffers=128MB at 100/s"));
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "2");
  CHECK(wb::test::query(store, "SELECT sum(errors) FROM trials") == "0");
  // 100/s for 1 s: Poisson counts within 5 standard deviations (50) of 100.
  CHECK(std::atof(wb::test::query(store, "SELECT min(achieved_rate) FROM trials").c_str()) > 50);
  CHECK(std::atof(wb::test::query(store, "SELECT max(achieved_rate) FROM trials").c_str()) < 150);
  CHECK(std::atof(wb::test::query(store, "SELECT min(mean_ms) FROM trials").c_str()) > 0);

  auto peak = wb::test::run_to_exit(
      {kWorkbench, "peak", "--config", config, "--store", store.string(), "--set", "clients=4", "--json"},
      600s);
  INFO(peak.err);
  REQUIRE((peak.exit_code == 0 || peak.exit_code == 1));
  auto j = nlohmann::json::parse(peak.out);
  INFO(peak.out);
  CHECK(j["sample"]["clients"] == 4);
  CHECK(std::atoi(wb::test::query(store, "SELECT count(DISTINCT rate) FROM trials").c_str()) > 2);
  // How fast PostgreSQL is depends on the machine (the WAL's fsyncs on a shared disk): the test asks
  // for a search that ends for a reason a search may end, with λ* among the loads it measured.
  if (j["status"] == "found" || j["status"] == "cliff" || j["status"] == "bistable") {
    double lowest =
        std::atof(wb::test::query(store, "SELECT min(rate) FROM trials WHERE search_id = 2").c_str());
    double highest =
        std::atof(wb::test::query(store, "SELECT max(rate) FROM trials WHERE search_id = 2").c_str());
    CHECK(j["peak_rate"].get<double>() >= lowest);
    CHECK(j["peak_rate"].get<double>() <= highest);
  } else {
    CHECK((j["status"] == "not-found" && j["loads"].size() == 7));
  }
  // Black-box calibration from what was measured: pgbench reports no stage times.
  auto fit = wb::test::run_to_exit({kWorkbench, "model", "calibrate", "--config", config, "--store",
                                    store.string(), "--method", "fit", "--json"},
                                   120s);
  INFO(fit.err);
  REQUIRE(fit.exit_code == 0);
  auto f = nlohmann::json::parse(fit.out);
  CHECK(f["points"].get<int>() >= 4);
  REQUIRE(f["centers"].size() == 2);
  CHECK(f["centers"][0]["center"] == "cpu");
  CHECK(f["centers"][0]["low"].get<double>() <= f["centers"][0]["multiplier"].get<double>());
  auto show = wb::test::run_to_exit({kWorkbench, "model", "show", "--config", config, "--store",
                                     store.string(), "--set", "clients=16", "--json"},
                                    60s);
  REQUIRE(show.exit_code == 0);
  auto m = nlohmann::json::parse(show.out);
  CHECK_THAT(m["centers"][1]["calibrated"]["source"].get<std::string>(), Catch::StartsWith("fitted to "));
  CHECK(wb::test::count_processes(fmt::format("-p {} ", port)) == 0);  // postgres and pgbench
  CHECK(!fs::exists(fmt::format("/tmp/wb-postgres-{}", port)));
  fs::remove_all(dir);
}
