// The searches part of the store (store/searches.hpp): a search's record, trials, loads and end
// round-trip; found searches and λ* intervals are read back as written.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "store/sqlite.hpp"
#include "tests/store/temp_store.hpp"

using namespace wb;

namespace {

store::SearchRecord record(const std::string& testbed, const std::string& threads) {
  return test::search_record(testbed, "threads", threads, 7, R"({"runlength_s":10})");
}

TrialResult trial(double rate, double mean) {
  TrialResult t;
  t.offered_rate = rate;
  t.achieved_rate = rate * 0.99;
  t.runlength_s = 10;
  t.sent = 1000;
  t.completed = 990;
  t.errors = 2;
  t.mean_ms = mean;
  t.p50_ms = mean * 0.8;
  t.p90_ms = mean * 1.5;
  t.p95_ms = mean * 1.8;
  t.p99_ms = mean * 2.5;
  t.max_ms = mean * 4;
  t.cost_s = 12.5;
  t.stage_ms = {{"cpu", 0.25}, {"disk", 4.5}};
  return t;
}

}  // namespace

TEST_CASE("a search's record, trials and end round-trip") {
  test::TempStore t("searches");
  store::Store& s = t.store;
  const std::int64_t id = s.begin_search(record("demo", "8"));
  const std::int64_t other = s.begin_search(record("sim", "4"));
  s.add_trial(id, 0, trial(100, 5));
  s.add_trial(id, 0, trial(100, 6));
  s.add_trial(id, 1, trial(150, 9));
  s.add_trial(other, 0, trial(10, 1));

  auto r = s.search(id);
  REQUIRE(r);
  CHECK(r->testbed == "demo");
  CHECK(r->sample.key() == "threads=8");
  CHECK(r->confidence == 0.95);
  CHECK(r->policy == "binsearch");
  CHECK(r->seed == 7);
  CHECK(r->options_json == R"({"runlength_s":10})");
  CHECK(r->status == store::SearchState::kRunning);
  CHECK(!r->peak_rate);
  CHECK(!s.search(other + 100));

  auto trials = s.trials(id);
  REQUIRE(trials.size() == 3);
  CHECK(trials[0].load_index == 0);
  CHECK(trials[2].load_index == 1);
  CHECK(trials[2].trial.offered_rate == 150);
  CHECK(trials[1].trial.mean_ms == 6);
  CHECK(trials[1].trial.p99_ms == 15);
  CHECK(trials[1].trial.errors == 2);
  CHECK(trials[1].trial.stage_ms.at("disk") == 4.5);
  CHECK(s.count_trials() == 4);

  SearchResult done;
  done.status = SearchStatus::kFound;
  done.peak_rate = 150;
  done.response = MeanInterval{9, 8.5, 9.5};
  done.peak_low = 120;
  done.peak_high = std::numeric_limits<double>::infinity();
  s.finish_search(id, done);
  r = s.search(id);
  CHECK(r->status == store::SearchState::kFound);
  CHECK(r->peak_rate == 150);
  auto interval = s.peak_interval(id);
  REQUIRE(interval);
  CHECK(interval->low == 120);
  CHECK(!interval->high);  // unbounded above

  SearchResult failed;
  failed.status = SearchStatus::kFailed;
  failed.message = "trial failed twice";
  s.finish_search(other, failed);
  CHECK(s.search(other)->status == store::SearchState::kFailed);
  CHECK(!s.peak_interval(other));
  CHECK(s.found_searches("demo", 10) == std::vector<std::int64_t>{id});
  CHECK(s.found_searches("sim", 10).empty());
  CHECK(s.search_ids("demo") == std::vector<std::int64_t>{id});

  // A search that ended below a bistable band has a λ* as a found one has.
  const std::int64_t band = s.begin_search(record("demo", "3"));
  SearchResult bistable = done;
  bistable.status = SearchStatus::kBistable;
  bistable.peak_low = 150;
  bistable.peak_high = 170;
  bistable.message = "bistable within [160, 170]/s";
  s.finish_search(band, bistable);
  CHECK(s.search(band)->status == store::SearchState::kBistable);
  CHECK(s.search(band)->peak_rate == 150);
  CHECK(s.found_searches("demo", 10) == std::vector<std::int64_t>{band, id});
  REQUIRE(s.peak_interval(band));
  CHECK(s.peak_interval(band)->high == 170);
}

TEST_CASE("loads are replaced by index, and fixed-rate runs end as fixed") {
  test::TempStore t("loads");
  store::Store& s = t.store;
  const std::int64_t id = s.begin_search(record("demo", "2"));
  TestLoad l;
  l.rate = 50;
  l.runlength_s = 5;
  l.trials = {trial(50, 3), trial(50, 4)};
  l.ci = MeanInterval{3.5, 3, 4};
  l.verdict = Verdict::kBelow;
  s.add_load(id, 0, l);
  l.trials.push_back(trial(50, 3.5));
  s.add_load(id, 0, l);  // the same load again, with one trial more: one row
  store::Statement q = s.db().prepare("SELECT count(*), max(trials) FROM loads WHERE search_id = ?1");
  q.bind(1, id);
  REQUIRE(q.step());
  CHECK(q.column_int(0) == 1);
  CHECK(q.column_int(1) == 3);
  s.finish_fixed_run(id, MeanInterval{3.5, 3.1, 3.9});
  auto r = s.search(id);
  REQUIRE(r);
  CHECK(r->status == store::SearchState::kFixed);
  CHECK(!r->peak_rate);
  CHECK(s.found_searches("demo", 10).empty());
}
