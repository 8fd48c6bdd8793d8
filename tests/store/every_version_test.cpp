// A store written by any earlier schema version opens with this build: Store migrates it to the
// current version and the searches and trials it held read back unchanged.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>

#include "store/schema.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string fresh_path(int version) {
  fs::path d = fs::temp_directory_path() / ("wb_every_version_" + std::to_string(getpid()));
  fs::create_directories(d);
  fs::path p = d / ("v" + std::to_string(version) + ".db");
  fs::remove(p);
  return p.string();
}

int user_version(store::Database& db) {
  store::Statement q = db.prepare("PRAGMA user_version");
  q.step();
  return static_cast<int>(q.column_int(0));
}

}  // namespace

TEST_CASE("a store of every earlier schema version migrates and keeps its searches and trials") {
  const int current = store::current_schema_version();
  REQUIRE(current >= 8);
  for (int v = 1; v < current; ++v) {
    INFO("schema version " << v);
    const std::string path = fresh_path(v);
    {
      store::Database db(path);
      store::migrate(db, v);
      REQUIRE(user_version(db) == v);
      // Written with the columns of version 1, which every later version keeps.
      db.exec(
          "INSERT INTO searches (testbed, sample, sample_json, confidence, accuracy, policy, seed, "
          "options_json, status, peak_rate, mean_ms, ci_low_ms, ci_high_ms, trials, cost_s) VALUES ('tb', "
          "'disks=2', '{\"disks\":\"2\"}', 0.95, 0.9, 'binsearch', 7, '{}', 'found', 123.5, 40, 38, 42, 2, "
          "130)");
      db.exec(
          "INSERT INTO trials (search_id, load_index, rate, runlength_s, achieved_rate, sent, completed, "
          "errors, mean_ms, p50_ms, p90_ms, p95_ms, p99_ms, max_ms, cost_s) VALUES (1, 0, 123.5, 60, 123, "
          "7410, 7400, 10, 40, 30, 70, 80, 95, 120, 65), (1, 0, 123.5, 60, 123.4, 7409, 7409, 0, 39, 29, "
          "69, 79, 94, 118, 65)");
    }
    store::Store s(path);
    {
      store::Statement q = s.db().prepare("PRAGMA user_version");
      q.step();
      CHECK(q.column_int(0) == current);
    }
    auto rec = s.search(1);
    REQUIRE(rec.has_value());
    CHECK(rec->testbed == "tb");
    CHECK(rec->sample.key() == "disks=2");
    CHECK(rec->status == store::SearchState::kFound);
    REQUIRE(rec->peak_rate.has_value());
    CHECK(*rec->peak_rate == 123.5);
    auto trials = s.trials(1);
    REQUIRE(trials.size() == 2);
    CHECK(trials[0].trial.sent == 7410);
    CHECK(trials[0].trial.p99_ms == 95);
    CHECK(trials[1].trial.mean_ms == 39);
    // And the migrated store takes new searches.
    store::SearchRecord r = *rec;
    const std::int64_t id = s.begin_search(r);
    CHECK(id == 2);
    CHECK(s.count_trials() == 2);
  }
  fs::remove_all(fs::temp_directory_path() / ("wb_every_version_" + std::to_string(getpid())));
}
