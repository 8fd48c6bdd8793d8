// Crash safety of the controller on the simulated testbed through the real binary (DESIGN.md
// "Security and failure"): `peak` killed with SIGKILL at random moments resumes to the result of
// an uninterrupted run, and two controllers on one store at once never run a search twice.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "tests/support/store_query.hpp"
#include "tests/support/workbench_cli.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using namespace wb::test;

namespace {

// configs/sim.toml with a longer runlength, so that each simulated trial takes real time and a
// search lasts long enough for kills to land inside it.
fs::path slow_config(const fs::path& dir, int runlength_s) {
  return wb::test::slow_sim_config(dir, runlength_s, false);
}

std::vector<std::string> peak_args(const fs::path& config, const std::string& db) {
  return {kWorkbench, "peak",  "--config",          config.string(), "--store",
          db,         "--set", "disks=3,threads=8", "--json"};
}

const std::string kTrialsSql =
    "SELECT s.sample, t.load_index, t.rate, t.runlength_s, t.mean_ms, t.completed, t.cost_s FROM trials t "
    "JOIN "
    "searches s ON s.id = t.search_id ORDER BY s.id, t.id";

}  // namespace

TEST_CASE("peak killed with SIGKILL at 30 random moments ends as an uninterrupted run does") {
  fs::path dir = temp_dir("crash", "peak_kill");
  fs::path config = slow_config(dir, 600);
  const std::string ref_db = (dir / "ref.db").string();
  auto t0 = std::chrono::steady_clock::now();
  wb::test::RunResult ref = wb::test::run_to_exit(peak_args(config, ref_db), 300s);
  const long ref_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  INFO(ref.err);
  REQUIRE(ref.exit_code == 0);
  REQUIRE(nlohmann::json::parse(ref.out)["trials"].get<int>() >= 6);

  // Each attempt lives a random time, on average 0.6/30 of the reference run, so that the kills
  // fall all over the search (each run continues where the last stopped) and it is not finished
  // before the last kill. If it finishes early anyway (a loaded machine), the round starts again on
  // a new store with half the delays; if most kills fell before the search began, with twice the
  // delays (at most 6 rounds in all).
  const std::uint32_t seed = std::random_device{}();
  INFO("seed " << seed << ", reference run " << ref_ms << " ms");
  std::mt19937 rng(seed);
  long max_delay_ms = std::max<long>(ref_ms * 6 / 5 / 30, 20);
  std::string db;
  int killed = 0, attempts = 0, killed_mid_search = 0;
  std::string final_out;
  for (int round = 0; final_out.empty(); ++round) {
    REQUIRE(round < 6);
    db = (dir / ("killed" + std::to_string(round) + ".db")).string();
    std::uniform_int_distribution<long> delay(0, max_delay_ms);
    killed = killed_mid_search = attempts = 0;
    for (;;) {
      REQUIRE(attempts++ < 300);  // bounded: a run that never finishes fails the test
      wb::test::ChildProcess child(peak_args(config, db));
      if (killed < 30 && wb::test::killed_after(child, std::chrono::milliseconds(delay(rng)))) {
        ++killed;
        if (fs::exists(db) && !query(db, "SELECT name FROM sqlite_master WHERE name = 'leases'").empty() &&
            !query(db, "SELECT id FROM searches WHERE status = 'running'").empty())
          ++killed_mid_search;
        continue;
      }
      auto code = child.wait_exit(300s);
      REQUIRE(code);
      INFO(child.drain_stderr());
      REQUIRE(*code == 0);
      if (killed >= 30) final_out = child.drain_stdout();
      break;  // finished: after all kills (done), or too early (next round, shorter delays)
    }
    if (!final_out.empty() && killed_mid_search < 10) {
      // The kills fell mostly before the search began (a slow start on a loaded machine): they
      // did not exercise the resume. Again, with longer delays.
      final_out.clear();
      max_delay_ms *= 2;
      continue;
    }
    max_delay_ms = std::max<long>(max_delay_ms / 2, 10);
  }
  INFO("killed " << killed << " times, " << killed_mid_search << " inside the search");
  CHECK(killed_mid_search >= 10);
  CHECK(final_out == ref.out);  // byte-identical JSON
  CHECK(query(db, kTrialsSql) == query(ref_db, kTrialsSql));
  CHECK(query(db, "SELECT count(*) FROM searches")[0] == "1");
  CHECK(query(db, "SELECT status FROM searches")[0] == "found");
  CHECK(query(db, "SELECT count(*) FROM leases")[0] == "0");
  CHECK(query(db, "PRAGMA integrity_check")[0] == "ok");
}

TEST_CASE("a search whose controller was killed shows as interrupted, then resumes") {
  fs::path dir = temp_dir("crash", "interrupted");
  fs::path config = slow_config(dir, 600);
  const std::string db = (dir / "w.db").string();
  {
    wb::test::ChildProcess child(peak_args(config, db));
    // Killed once it has stored a trial.
    for (int i = 0; i < 600; ++i) {
      std::this_thread::sleep_for(50ms);
      if (fs::exists(db) && !query(db, "SELECT name FROM sqlite_master WHERE name = 'leases'").empty() &&
          query(db, "SELECT count(*) FROM trials")[0] != "0")
        break;
    }
    child.send_signal(SIGKILL);
    REQUIRE(child.wait_exit(30s) == 128 + SIGKILL);
  }
  REQUIRE(query(db, "SELECT status FROM searches")[0] == "running");  // as the kill left it
  auto report = wb::test::run_to_exit(
      {kWorkbench, "report", "--config", config.string(), "--store", db, "--json"}, 60s);
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  CHECK(nlohmann::json::parse(report.out)["searches"][0]["status"] == "interrupted");
  CHECK(report.err.find("marked interrupted") != std::string::npos);

  auto resumed = wb::test::run_to_exit(peak_args(config, db), 300s);
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("resuming search 1") != std::string::npos);
  CHECK(nlohmann::json::parse(resumed.out)["search_id"] == 1);
}

TEST_CASE("two peaks on one store at once run the search once, and both report it") {
  fs::path dir = temp_dir("crash", "two_peaks");
  fs::path config = slow_config(dir, 300);
  for (int round = 0; round < 10; ++round) {
    INFO("round " << round);
    const std::string db = (dir / ("w" + std::to_string(round) + ".db")).string();
    wb::test::ChildProcess a(peak_args(config, db));
    wb::test::ChildProcess b(peak_args(config, db));
    auto ea = a.wait_exit(300s);
    auto eb = b.wait_exit(300s);
    std::string out_a = a.drain_stdout(), out_b = b.drain_stdout();
    INFO("a: " << a.drain_stderr() << "\nb: " << b.drain_stderr());
    REQUIRE(ea == 0);
    REQUIRE(eb == 0);
    CHECK(out_a == out_b);
    CHECK(query(db, "SELECT count(*) FROM searches")[0] == "1");
    CHECK(query(db, "SELECT trials FROM searches")[0] == nlohmann::json::parse(out_a)["trials"].dump());
    CHECK(query(db, "SELECT count(*) FROM trials")[0] == nlohmann::json::parse(out_a)["trials"].dump());
    CHECK(query(db, "PRAGMA integrity_check")[0] == "ok");
  }
}

TEST_CASE("two map-surface on one store at once share its points: every search runs once") {
  fs::path dir = temp_dir("crash", "two_surfaces");
  auto args = [&](const std::string& db) {
    return std::vector<std::string>{kWorkbench,  "map-surface",   "--config", kSimConfig, "--store", db,
                                    "--factors", "disks,threads", "--points", "8",        "--json"};
  };
  const std::string ref_db = (dir / "ref.db").string();
  auto ref = wb::test::run_to_exit(args(ref_db), 300s);
  INFO(ref.err);
  REQUIRE(ref.exit_code == 0);
  const std::string ref_trials = query(ref_db, "SELECT count(*) FROM trials")[0];
  const auto ref_searches =
      query(ref_db, "SELECT sample, status, peak_rate, trials FROM searches ORDER BY sample");
  for (int round = 0; round < 10; ++round) {
    INFO("round " << round);
    const std::string db = (dir / ("w" + std::to_string(round) + ".db")).string();
    wb::test::ChildProcess a(args(db));
    wb::test::ChildProcess b(args(db));
    auto ea = a.wait_exit(300s);
    auto eb = b.wait_exit(300s);
    INFO("a: " << a.drain_stderr() << "\nb: " << b.drain_stderr());
    REQUIRE(ea == 0);
    REQUIRE(eb == 0);
    CHECK(query(db, "SELECT count(*) FROM surfaces")[0] == "1");
    CHECK(query(db, "SELECT count(*) FROM trials")[0] == ref_trials);
    CHECK(query(db, "SELECT sample, status, peak_rate, trials FROM searches ORDER BY sample") ==
          ref_searches);
    CHECK(query(db, "SELECT count(*) FROM leases")[0] == "0");
    CHECK(query(db, "PRAGMA integrity_check")[0] == "ok");
  }
}
