// `workbench map-surface` killed with SIGKILL at random moments, then run again until it finishes:
// nothing measured is lost and nothing finished is run again (docs/decisions.md#resume-by-replay). The real
// binary, a real store, the simulated testbed with a longer runlength so that a surface takes seconds.
#include <signal.h>
#include <sqlite3.h>
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

// configs/sim.toml with `runlength_s` replaced, so that each trial takes real time to simulate,
// and without its [model] (everything from the first [[model.center]] on, the end of the file).
// Without a model, --seeding starts each search from the nearest measured sample's region as measured:
// with the model's ratio the seeds of configs/sim.toml are within about 1% of λ*, its searches take
// 3-5 trials each and the run is mostly model solving (0.4-0.9 s per sample at threads=100), so
// few kills would land inside a search, which is what this test exercises.
fs::path slow_config(const fs::path& dir, int runlength_s) {
  return wb::test::slow_sim_config(dir, runlength_s, true);
}

std::vector<std::string> surface_args(const fs::path& config, const fs::path& store,
                                      const std::vector<std::string>& extra) {
  std::vector<std::string> args{kWorkbench,     "map-surface", "--config",      config.string(), "--store",
                                store.string(), "--factors",   "disks,threads", "--design",      "dopt",
                                "--points",     "8",           "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The JSON without what legitimately differs between an interrupted and an uninterrupted run:
// store ids (on two slots the searches of positions 0 and 1 start in either order), the real
// time, and what this particular run did.
nlohmann::json comparable(nlohmann::json j) {
  j.erase("surface_id");
  j.erase("wall_s");
  j.erase("this_run");
  for (auto& s : j["samples"]) s.erase("search_id");
  return j;
}

// What each search of the store measured: sample, status, λ*, trials, cost (in sample order).
std::vector<std::string> searches(const fs::path& db) {
  return query(db, "SELECT sample, status, peak_rate, trials, cost_s FROM searches ORDER BY sample");
}

void kill_and_resume(const std::vector<std::string>& extra, int kills, std::uint32_t seed) {
  fs::path dir = temp_dir("map_surface_kill", "run" + std::to_string(seed));
  fs::path config = slow_config(dir, 600);

  // The reference: one uninterrupted run.
  fs::path ref_db = dir / "ref.db";
  auto t0 = std::chrono::steady_clock::now();
  wb::test::RunResult ref = wb::test::run_to_exit(surface_args(config, ref_db, extra), 300s);
  auto ref_time = std::chrono::steady_clock::now() - t0;
  INFO(ref.err);
  REQUIRE(ref.exit_code == 0);
  nlohmann::json ref_json = nlohmann::json::parse(ref.out);
  const auto ref_ms = std::chrono::duration_cast<std::chrono::milliseconds>(ref_time).count();
  REQUIRE(ref_json["trials"].get<int>() > 40);

  // Killed at random moments: each attempt lives for a random time, on average 0.6/kills of the
  // reference run, so that the kills fall all over the surface (each run continues where the
  // last one stopped) and the surface is not finished before the last kill. The machine's load
  // changes how much a run gets done in that time: if the surface finishes before `kills` kills,
  // the round starts again on a new store with half the delays (at most 6 rounds).
  fs::path db;
  std::mt19937 rng(seed);
  long max_delay_ms = std::max<long>(ref_ms * 6 / 5 / kills, 20);
  int killed = 0, killed_mid_search = 0, attempts = 0;
  std::string final_out;
  for (int round = 0; final_out.empty(); ++round) {
    REQUIRE(round < 6);
    db = dir / ("killed" + std::to_string(round) + ".db");
    std::uniform_int_distribution<long> delay(0, max_delay_ms);
    killed = killed_mid_search = attempts = 0;
    for (;;) {
      REQUIRE(attempts < kills + 200);  // bounded: a run that never finishes fails the test
      ++attempts;
      wb::test::ChildProcess child(surface_args(config, db, extra));
      if (killed < kills && wb::test::killed_after(child, std::chrono::milliseconds(delay(rng)))) {
        ++killed;
        // (A kill before the first migration committed leaves a store without tables.)
        if (fs::exists(db) && !query(db, "SELECT name FROM sqlite_master WHERE name = 'searches'").empty() &&
            !query(db, "SELECT id FROM searches WHERE status = 'running'").empty()) {
          ++killed_mid_search;
        }
        continue;
      }
      auto code = child.wait_exit(300s);
      REQUIRE(code);
      std::string err = child.drain_stderr();
      INFO(err);
      REQUIRE(*code == 0);
      if (killed >= kills) final_out = child.drain_stdout();
      break;  // finished: after all kills (done), or too early (next round, shorter delays)
    }
    max_delay_ms = std::max<long>(max_delay_ms / 2, 10);
  }
  INFO("killed " << killed << " times, " << killed_mid_search << " in the middle of a search, " << attempts
                 << " runs");
  CHECK(killed >= kills);
  // Most of a run is spent inside searches, so some kills must have cut one: those are the kills
  // that exercise the replay of stored trials.
  CHECK(killed_mid_search >= kills / 4);

  nlohmann::json got = nlohmann::json::parse(final_out);
  CHECK(comparable(got) == comparable(ref_json));
  // wall_s is the busiest slot's time as the searches ran; which slot started which search depends
  // on where the kills fell, so only its bounds match the reference's.
  const double cost = got["cost_s"].get<double>(), slots = got["parallel"].get<double>();
  CHECK(got["wall_s"].get<double>() <= cost * (1 + 1e-9));
  CHECK(got["wall_s"].get<double>() >= cost / slots * (1 - 1e-9));

  // Every sample searched exactly once, every search finished; the same trials as the reference.
  CHECK(query(db, "SELECT count(*) FROM searches")[0] == "8");
  CHECK(query(db, "SELECT count(DISTINCT sample) FROM searches")[0] == "8");
  CHECK(query(db, "SELECT count(*) FROM searches WHERE status = 'running'")[0] == "0");
  CHECK(query(db, "SELECT count(*) FROM surface_points WHERE search_id IS NULL")[0] == "0");
  CHECK(query(db, "SELECT count(*) FROM surfaces")[0] == "1");
  CHECK(query(db, "SELECT count(*) FROM trials")[0] == query(ref_db, "SELECT count(*) FROM trials")[0]);
  CHECK(searches(db) == searches(ref_db));
  // The trials themselves, in order, are the reference's (nothing lost, none run twice).
  const std::string trials_sql =
      "SELECT s.sample, t.load_index, t.rate, t.mean_ms, t.completed FROM trials t JOIN searches s ON s.id = "
      "t.search_id "
      "ORDER BY s.sample, t.id";
  CHECK(query(db, trials_sql) == query(ref_db, trials_sql));
  // Each search's counters agree with its trials (the counter update and the trial are one transaction).
  CHECK(query(db,
              "SELECT count(*) FROM searches s WHERE s.trials != (SELECT count(*) FROM trials t WHERE "
              "t.search_id = s.id)")[0] == "0");
  CHECK(query(db, "PRAGMA integrity_check")[0] == "ok");
}

}  // namespace

TEST_CASE("map-surface killed 20 times with SIGKILL loses nothing and redoes nothing (one slot, seeding)") {
  kill_and_resume({"--seeding"}, 20, 20261121);
}

TEST_CASE("map-surface killed with SIGKILL on two slots loses nothing and redoes nothing") {
  kill_and_resume({"--parallel", "2"}, 10, 7);
}
