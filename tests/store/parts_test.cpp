// The surfaces, models and probes parts of the store (store/surfaces.hpp, models.hpp, probes.hpp):
// rows round-trip, lists come in their documented order, and the one-transaction rules hold
// (a surface point takes one search; a sample is probed once).
#include <catch2/catch.hpp>

#include <cstdint>

#include "core/error.hpp"
#include "tests/store/temp_store.hpp"

using namespace wb;

namespace {

Sample sample(const std::string& threads, const std::string& disks = "2") {
  Sample s;
  s.set("threads", threads);
  s.set("disks", disks);
  return s;
}

store::SearchRecord record(const Sample& at) {
  store::SearchRecord r;
  r.testbed = "demo";
  r.sample = at;
  r.policy = "binsearch";
  return r;
}

}  // namespace

TEST_CASE("a surface keeps its tour, takes one search per point, and ends with a status") {
  test::TempStore t("surfaces");
  store::Store& s = t.store;
  const std::vector<Sample> tour{sample("2"), sample("8"), sample("32")};
  CHECK(!s.find_surface("demo", "key-a"));
  const std::int64_t id = s.create_surface("demo", "key-a", R"({"factors":["threads"]})", tour);
  auto found = s.find_surface("demo", "key-a");
  REQUIRE(found);
  CHECK(found->id == id);
  CHECK(!s.find_surface("demo", "key-b"));
  REQUIRE(found->points.size() == 3);
  CHECK(found->points[1].sample.key() == sample("8").key());
  CHECK(!found->points[1].search_id);

  const std::int64_t search = s.begin_surface_search(id, 1, record(sample("8")), 2, 120, true, 0.75);
  CHECK_THROWS_AS(s.begin_surface_search(id, 1, record(sample("8")), 0, 100, false), Error);
  auto r = s.surface(id);
  REQUIRE(r);
  CHECK(r->points[1].search_id == search);
  CHECK(r->points[1].slot == 2);
  CHECK(r->points[1].start_rate == 120);
  CHECK(r->points[1].seeded);
  CHECK(r->points[1].seed_elasticity == 0.75);
  CHECK(s.search(search)->sample.key() == sample("8").key());
  CHECK(s.done_surfaces("demo").empty());

  // Augmentation appends a sample once: a second add of the same sample returns its position.
  CHECK(s.add_surface_point(id, sample("64")) == 3);
  CHECK(s.add_surface_point(id, sample("8")) == 1);
  CHECK(s.add_surface_point(id, sample("64")) == 3);
  CHECK(s.surface(id)->points.size() == 4);

  s.finish_surface(id, store::SurfaceState::kDone);
  CHECK(s.surface(id)->status == store::SurfaceState::kDone);
  REQUIRE(s.find_surface("demo", "key-a"));  // finished: the same request reports it
  CHECK(s.find_surface("demo", "key-a")->status == store::SurfaceState::kDone);
  CHECK(s.done_surfaces("demo") == std::vector<std::int64_t>{id});
}

TEST_CASE("status columns parse to the states their texts name and refuse other texts") {
  for (auto state :
       {store::SurfaceState::kRunning, store::SurfaceState::kDone, store::SurfaceState::kBudget}) {
    CHECK(store::parse_surface_state(store::to_string(state)) == state);
  }
  for (auto state :
       {store::SearchState::kRunning, store::SearchState::kInterrupted, store::SearchState::kFound,
        store::SearchState::kNotFound, store::SearchState::kBudget, store::SearchState::kFailed,
        store::SearchState::kFixed, store::SearchState::kCliff, store::SearchState::kBistable}) {
    CHECK(store::parse_search_state(store::to_string(state)) == state);
  }
  CHECK(store::to_string(store::SurfaceState::kBudget) == "budget");
  CHECK(store::to_string(store::SearchState::kBistable) == "bistable");
  CHECK(store::has_peak(store::SearchState::kBistable));
  CHECK_THROWS_AS(store::parse_surface_state("finished"), Error);
  CHECK_THROWS_AS(store::parse_search_state(""), Error);
}

TEST_CASE("truths, expectations, calibrations and Z-CART trees round-trip") {
  test::TempStore t("models");
  store::Store& s = t.store;
  CHECK(!s.find_truth("sim", "threads=2", "h1"));
  s.put_truth("sim", "threads=2", "h1", {40.5, 38, 43});
  auto truth = s.find_truth("sim", "threads=2", "h1");
  REQUIRE(truth);
  CHECK(truth->peak_rate == 40.5);
  CHECK(truth->region_high == 43);
  CHECK(!s.find_truth("sim", "threads=2", "h2"));  // another config hash is another truth

  const std::int64_t search = s.begin_search(record(sample("4")));
  store::Store::ExpectationRow e;
  e.search_id = search;
  e.peak_rate = 55;
  e.bottleneck = "disk";
  s.put_expectation(e);
  e.peak_rate = 60;  // replaces the first
  s.put_expectation(e);
  auto got = s.expectation(search);
  REQUIRE(got);
  CHECK(got->peak_rate == 60);
  CHECK(!got->saturation_rate);  // unbounded
  CHECK(got->bottleneck == "disk");
  CHECK(!s.expectation(search + 1));

  s.add_calibration({"demo", "disk", sample("4"), 4.9, 1.0, "stages", ""});
  s.add_calibration({"demo", "cpu", sample("4"), 0.21, std::nullopt, "stages", ""});
  s.add_calibration({"other", "cpu", sample("4"), 9, std::nullopt, "stages", ""});
  auto cals = s.calibrations("demo");
  REQUIRE(cals.size() == 2);
  CHECK(cals[0].center == "disk");  // oldest first
  CHECK(cals[0].visits == 1.0);
  CHECK(!cals[1].visits);
  CHECK(!cals[1].created_at.empty());  // the store's clock

  CHECK(!s.zcart_tree("demo"));
  s.put_zcart_tree("demo", R"({"nodes":[1]})", 3);
  s.put_zcart_tree("demo", R"({"nodes":[1,2,3]})", 5);
  CHECK(s.zcart_tree("demo") == std::string(R"({"nodes":[1,2,3]})"));

  CHECK(!s.cached_expected_peak("demo", "threads=4", "k1"));
  s.put_expected_peak("demo", "threads=4", "k1", 41.5);
  s.put_expected_peak("demo", "threads=8", "k1", std::nullopt);
  auto cached = s.cached_expected_peak("demo", "threads=4", "k1");
  REQUIRE(cached);
  CHECK(*cached == 41.5);
  auto unbounded = s.cached_expected_peak("demo", "threads=8", "k1");
  REQUIRE(unbounded);  // cached, as unbounded
  CHECK(!*unbounded);
  CHECK(!s.cached_expected_peak("demo", "threads=4", "k2"));   // other inputs
  CHECK(!s.cached_expected_peak("other", "threads=4", "k1"));  // another testbed
}

TEST_CASE("a mismatch plans each sample's probe once, and its probes are claimed, finished and cancelled") {
  test::TempStore t("probes");
  store::Store& s = t.store;
  store::Store::MismatchRow m;
  m.testbed = "demo";
  m.sample = sample("8");
  m.search_id = s.begin_search(record(m.sample));
  m.expected = 60;
  m.measured = 40;
  m.ratio = 40.0 / 60;
  store::Store::ProbeRow a;
  a.testbed = "demo";
  a.sample = sample("16");
  a.attribute = "threads";
  a.priority = 1;
  store::Store::ProbeRow b = a;
  b.sample = sample("8", "4");
  b.attribute = "disks";
  b.priority = 2;
  auto [mid, ids] = s.add_mismatch(m, {a, b});
  REQUIRE(ids.size() == 2);
  CHECK(s.has_mismatch_at("demo", sample("8")));
  CHECK(!s.has_mismatch_at("demo", sample("16")));
  // A second mismatch asking for the same samples plans nothing new.
  auto [mid2, ids2] = s.add_mismatch(m, {a, b});
  CHECK(mid2 != mid);
  CHECK(ids2.empty());
  CHECK(s.mismatches("demo", true).size() == 2);
  s.close_mismatch(mid2);
  CHECK(s.mismatches("demo", true).size() == 1);
  CHECK(s.mismatches("demo", false).size() == 2);
  CHECK(s.mismatch(mid)->ratio == Approx(40.0 / 60));

  auto first = s.claim_due_probe("demo", "agent-1", 1000);
  REQUIRE(first);
  CHECK(first->id == ids[1]);  // the highest priority runs first
  CHECK(first->status == store::ProbeState::kRunning);
  CHECK(first->lock_owner == std::string("agent-1"));
  CHECK(!s.claim_probe(ids[1], "agent-2", 1000));  // taken
  auto second = s.claim_due_probe("demo", "agent-2", 1000);
  REQUIRE(second);
  CHECK(second->id == ids[0]);
  CHECK(!s.claim_due_probe("demo", "agent-3", 1000));  // none left
  s.finish_probe(ids[0], std::nullopt);
  CHECK(s.probe(ids[0])->status == store::ProbeState::kDone);
  s.release_probe(ids[1]);
  CHECK(s.probe(ids[1])->status == store::ProbeState::kPlanned);
  CHECK(!s.probe(ids[1])->lock_owner);
  CHECK(s.probes("demo", false).size() == 1);
  CHECK(s.probes("demo", true).size() == 2);
  CHECK(s.cancel_probe(ids[1]));
  CHECK(!s.cancel_probe(ids[1]));
  CHECK(!s.cancel_probe(ids[0]));  // done
  CHECK_THROWS_AS(s.cancel_probe(ids[1] + 100), InputError);
}
