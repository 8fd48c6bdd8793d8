// Migrations 4 -> 5 -> 6 on a real version-4 store (v4_store.sql): old rows read back unchanged,
// new columns default sensibly, and the new fields round-trip.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/stats.hpp"
#include "store/schema.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"
#include "tests/store/temp_store.hpp"

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string fresh_migration_path(const std::string& name) {
  return wb::test::fresh_store_path("migration_" + name);
}

// A copy of the version-4 fixture at a fresh path.
std::string v4_store(const std::string& name) {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/tests/store/v4_store.sql");
  REQUIRE(in);
  std::stringstream sql;
  sql << in.rdbuf();
  std::string path = fresh_migration_path(name);
  store::Database db(path);
  db.exec(sql.str());
  return path;
}

int user_version(store::Store& s) {
  store::Statement q = s.db().prepare("PRAGMA user_version");
  q.step();
  return static_cast<int>(q.column_int(0));
}

}  // namespace

TEST_CASE("a version 4 store migrates to the current version and keeps its searches, trials and mismatches") {
  const std::string path = v4_store("keeps");
  {
    store::Database raw(path);
    store::Statement q = raw.prepare("PRAGMA user_version");
    q.step();
    REQUIRE(q.column_int(0) == 4);
  }
  store::Store s(path);
  CHECK(user_version(s) == store::current_schema_version());
  CHECK(store::current_schema_version() == 11);

  auto rec = s.search(1);
  REQUIRE(rec);
  CHECK(rec->status == store::SearchState::kFound);
  REQUIRE(rec->peak_rate);
  CHECK(*rec->peak_rate == Approx(137.5));
  auto trials = s.trials(1);
  CHECK(trials.size() == 34);
  for (const auto& t : trials) CHECK(t.trial.stage_ms.empty());  // measured before stages existed
  CHECK(trials.front().trial.mean_ms > 0);

  auto ms = s.mismatches("sim-nfs", false);
  REQUIRE(ms.size() == 1);
  CHECK(ms[0].metric == store::MismatchMetric::kPeakRate);
  CHECK_FALSE(ms[0].center);
  CHECK(ms[0].center_json.empty());
  CHECK(ms[0].expected == Approx(60.0));
}

TEST_CASE("stage times, fixed-rate runs and response-time mismatches round-trip after the migration") {
  store::Store s(v4_store("roundtrip"));
  store::SearchRecord run;
  run.testbed = "sim-nfs";
  run.sample = s.search(1)->sample;
  run.confidence = 0.95;
  run.accuracy = 0.9;
  run.policy = "fixed";
  run.options_json = R"({"rate":50})";
  const std::int64_t id = s.begin_search(run);
  TrialResult t;
  t.offered_rate = 50;
  t.achieved_rate = 49.8;
  t.runlength_s = 5;
  t.sent = t.completed = 249;
  t.mean_ms = 7.25;
  t.stage_ms = {{"cpu", 0.2}, {"disk", 4.75}, {"disk_queue", 1.5}, {"thread_queue", 0.0625}};
  s.add_trial(id, 0, t);
  TrialResult plain = t;
  plain.stage_ms.clear();
  s.add_trial(id, 0, plain);
  s.finish_fixed_run(id, MeanInterval{7.25, 7.0, 7.5});

  auto back = s.trials(id);
  REQUIRE(back.size() == 2);
  CHECK(back[0].trial.stage_ms == t.stage_ms);
  CHECK(back[1].trial.stage_ms.empty());
  auto rec = s.search(id);
  REQUIRE(rec);
  CHECK(rec->status == store::SearchState::kFixed);
  CHECK(rec->policy == "fixed");
  CHECK_FALSE(rec->peak_rate);
  CHECK(rec->trials == 2);

  store::Store::MismatchRow m;
  m.testbed = "sim-nfs";
  m.search_id = id;
  m.sample = run.sample;
  m.metric = store::MismatchMetric::kMeanMs;
  m.expected = 4.5;
  m.measured = 7.25;
  m.ratio = 7.25 / 4.5;
  m.center = "disk";
  m.center_json = R"([{"center":"disk","predicted_ms":3.1,"measured_ms":6.25}])";
  auto [mid, probes] = s.add_mismatch(m, {});
  CHECK(probes.empty());
  auto got = s.mismatch(mid);
  REQUIRE(got);
  CHECK(got->metric == store::MismatchMetric::kMeanMs);
  CHECK(got->center == std::optional<std::string>("disk"));
  CHECK(got->center_json == m.center_json);
  // The default lists λ* mismatches only (what Z-CART refines); "" lists every metric.
  CHECK(s.mismatches("sim-nfs", true).size() == 1);
  CHECK(s.mismatches("sim-nfs", true, store::MismatchMetric::kMeanMs).size() == 1);
  CHECK(s.mismatches("sim-nfs", true, std::nullopt).size() == 2);
}

TEST_CASE("a surface point keeps the elasticity its seeded search aimed with, none by default") {
  store::Store s(v4_store("elasticity"));
  Sample a = s.search(1)->sample, b = a;
  std::int64_t surface = s.create_surface("sim-nfs", "key", "{}", {a, b});
  store::SearchRecord rec;
  rec.testbed = "sim-nfs";
  rec.sample = a;
  rec.confidence = 0.95;
  rec.accuracy = 0.9;
  rec.policy = "model-safe";
  rec.options_json = "{}";
  s.begin_surface_search(surface, 0, rec, 0, 140.0, true, 3.25);
  s.begin_surface_search(surface, 1, rec, 0, 50.0, false);
  auto back = s.surface(surface);
  REQUIRE(back);
  REQUIRE(back->points.size() == 2);
  CHECK(back->points[0].seeded);
  CHECK(back->points[0].seed_elasticity == 3.25);
  CHECK_FALSE(back->points[1].seeded);
  CHECK(back->points[1].seed_elasticity == 0);
}

TEST_CASE("a trial's I/O trace is stored with it, listed newest first and read back whole") {
  store::Store s(v4_store("traces"));
  store::SearchRecord run;
  run.testbed = "sim-nfs";
  run.sample = s.search(1)->sample;
  run.confidence = 0.95;
  run.accuracy = 0.9;
  run.policy = "fixed";
  run.options_json = R"({"rate":50})";
  const std::int64_t id = s.begin_search(run);
  TrialResult t;
  t.offered_rate = 50;
  t.achieved_rate = 50;
  t.runlength_s = 1;
  t.sent = t.completed = 50;
  t.mean_ms = 5;
  t.io_trace =
      "op,file,offset,size,start_s,duration_s\nread,7,4096,8192,0.5,0.004\nwrite,3,0,100,0.75,0.01\n";
  s.add_trial(id, 0, t);
  TrialResult untraced = t;
  untraced.io_trace.clear();
  s.add_trial(id, 0, untraced);
  TrialResult later = t;
  later.offered_rate = 60;
  s.add_trial(id, 1, later);

  auto list = s.traces("sim-nfs");
  REQUIRE(list.size() == 2);  // the untraced trial has none
  CHECK(list[0].rate == 60);
  CHECK(list[0].trial_id > list[1].trial_id);
  CHECK(list[0].ops == 2);
  CHECK(list[0].csv.empty());
  CHECK(list[1].search_id == id);
  auto one = s.trace("sim-nfs", list[1].trial_id);
  REQUIRE(one);
  CHECK(one->csv == t.io_trace);
  CHECK(one->sample == run.sample.key());
  CHECK_FALSE(s.trace("other-testbed", list[1].trial_id));
  CHECK_FALSE(s.trace("sim-nfs", list[1].trial_id + 1));  // the untraced trial
}
