// The logic of map-surface without processes: the tour, seeding, the schedule's makespan, replay
// of a recorded search, and run_surface on the simulated testbed with a real store.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "experiment/search_recorder.hpp"
#include "experiment/surface_plan.hpp"
#include "experiment/surface_runner.hpp"
#include "harness/sim/sim_testbed.hpp"
#include "tests/support/workbench_cli.hpp"

namespace fs = std::filesystem;
using namespace wb;

namespace {

fs::path fresh_store(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wb_map_surface_unit_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d / "w.db";
}

// The tour of an 8-point D-optimal plan over disks x threads of `config`, as map-surface runs it.
std::vector<Sample> dopt_tour(const Config& config) {
  SurfacePlan plan = plan_surface(config, config.default_sample(), {{"disks", "threads"}, "dopt", 8, 1});
  std::vector<Sample> tour;
  for (Eigen::Index r : plan.tour) tour.push_back(plan.samples[static_cast<std::size_t>(r)]);
  return tour;
}

// A binsearch surface into the store at `path`: searches as [peak] of `config` asks, each from its
// start rate and recorded under the testbed's name.
SurfaceRunOptions binsearch_surface(const Config& config, const std::string& path) {
  SurfaceRunOptions o;
  o.store_path = path;
  o.search = {config.peak(), config.peak().target};
  o.policy = "binsearch";
  o.start_rate = config.peak().start_rate;
  o.search_record.testbed = config.name();
  o.search_record.policy = "binsearch";
  return o;
}

// Counts the trials that reach the testbed.
class CountingRunner final : public TrialRunner {
 public:
  explicit CountingRunner(TrialRunner& inner) : inner_(inner) {}
  TrialResult run(const Sample& s, double rate, double r, std::uint64_t i) override {
    ++calls;
    return inner_.run(s, rate, r, i);
  }
  int calls = 0;

 private:
  TrialRunner& inner_;
};

}  // namespace

TEST_CASE("nearest-neighbour tour starts at the low corner and always moves to the nearest point") {
  Eigen::MatrixXd coded(5, 2);
  coded << 1, 1,  // 0
      -1, -1,     // 1
      0.9, -1,    // 2
      -1, 0,      // 3
      0.5, 0.5;   // 4
  auto tour = nearest_neighbour_tour(coded, {0, 1, 2, 3, 4});
  REQUIRE(tour.size() == 5);
  CHECK(tour[0] == 1);  // the all-low corner
  CHECK(tour[1] == 3);  // distance 1 (vs 1.9 to row 2)
  CHECK(tour[2] == 4);  // from (-1,0): row 4 at sqrt(2.5), row 2 at sqrt(4.61), row 0 at sqrt(5)
  CHECK(tour[3] == 0);
  CHECK(tour[4] == 2);
  CHECK(nearest_neighbour_tour(coded, {}).empty());
}

TEST_CASE("the wall time is the busiest slot's testbed time as the searches ran") {
  auto point = [](int slot, double cost, bool searched = true) {
    PointOutcome p;
    p.slot = slot;
    p.cost_s = cost;
    if (searched) p.search_id = 1;
    return p;
  };
  CHECK(busiest_slot_s({point(0, 3), point(1, 4), point(0, 2)}) == Approx(5));
  CHECK(busiest_slot_s({point(0, 3), point(1, 3), point(1, 2), point(1, 2), point(0, 2)}) == Approx(7));
  CHECK(busiest_slot_s({point(2, 5), point(0, 9, false)}) == Approx(5));  // a point never searched
  CHECK(busiest_slot_s({}) == Approx(0));
}

TEST_CASE("a D-optimal plan for disks x threads: 8 distinct points of the 32, log-coded threads") {
  Config config = Config::load(wb::test::kSimConfig);
  SurfacePlan plan = plan_surface(config, config.default_sample(), {{"disks", "threads"}, "dopt", 8, 1});
  CHECK(plan.candidates.rows() == 32);
  CHECK(plan.samples.size() == 32);
  REQUIRE(plan.tour.size() == 8);
  CHECK(std::set<Eigen::Index>(plan.tour.begin(), plan.tour.end()).size() == 8);
  CHECK(plan.codings[0].scale() == CodingScale::kLinear);
  CHECK(plan.codings[1].scale() == CodingScale::kLog);
  CHECK(plan.terms.size() == 6);
  CHECK(plan.figures.d > 0);
  // Every sample carries the candidate row's levels.
  for (Eigen::Index r : plan.tour) {
    const Sample& s = plan.samples[static_cast<std::size_t>(r)];
    CHECK(s.numeric("disks") == plan.candidates(r, 0));
    CHECK(s.numeric("threads") == plan.candidates(r, 1));
  }
  SurfacePlan full = plan_surface(config, config.default_sample(), {{"disks", "threads"}, "full", 0, 1});
  CHECK(full.tour.size() == 32);
  CHECK_THROWS_AS(plan_surface(config, config.default_sample(), {{"disks", "threads"}, "dopt", 5, 1}),
                  InputError);
  CHECK_THROWS_AS(plan_surface(config, config.default_sample(), {{"disks", "nope"}, "dopt", 8, 1}),
                  InputError);
  CHECK_THROWS_AS(plan_surface(config, config.default_sample(), {{"disks", "disks"}, "dopt", 8, 1}),
                  InputError);
  CHECK_THROWS_AS(plan_surface(config, config.default_sample(), {{"disks", "threads"}, "ccd", 8, 1}),
                  InputError);
}

TEST_CASE("a replayed search makes the same decisions and runs only the trials after the recorded ones") {
  Config config = Config::load(wb::test::kSimConfig);
  SearchOptions options{config.peak(), config.peak().target};
  Sample sample = config.sample("disks=2,threads=16");
  sim::SimulatedTestbed sim(*config.sim(), 7);

  CountingRunner full_runner(sim);
  auto picker = make_picker("binsearch", config.peak(), config.peak().start_rate);
  SearchResult full = run_search(sample, options, *picker, full_runner);
  REQUIRE(full.status == SearchStatus::kFound);
  std::vector<TrialResult> all;
  for (const TestLoad& l : full.loads) all.insert(all.end(), l.trials.begin(), l.trials.end());
  REQUIRE(all.size() >= 4);

  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, all.size() / 2, all.size() - 1, all.size()}) {
    CountingRunner live(sim);
    ReplayingRunner replay(
        live, std::vector<TrialResult>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(cut)));
    auto p = make_picker("binsearch", config.peak(), config.peak().start_rate);
    SearchResult resumed = run_search(sample, options, *p, replay);
    INFO("cut after " << cut << " trials");
    CHECK(resumed.status == full.status);
    CHECK(resumed.peak_rate == full.peak_rate);
    CHECK(resumed.trials == full.trials);
    CHECK(resumed.cost_s == Approx(full.cost_s));
    CHECK(replay.replayed() == cut);
    CHECK(live.calls == static_cast<int>(all.size() - cut));
  }

  // A recording that does not belong to this search (another start rate) is refused, not resumed.
  CountingRunner live(sim);
  ReplayingRunner replay(live, all);
  auto other = make_picker("binsearch", config.peak(), config.peak().start_rate * 3);
  CHECK_THROWS_AS(run_search(sample, options, *other, replay), ReplayMismatch);
}

TEST_CASE(
    "run_surface on two virtual slots measures what one slot measures, and a second run redoes nothing") {
  Config config = Config::load(wb::test::kSimConfig);
  const std::vector<Sample> tour = dopt_tour(config);
  std::map<int, SurfaceRun> runs;
  for (int k : {1, 2}) {
    std::string path = fresh_store("parallel" + std::to_string(k)).string();
    std::int64_t id = store::Store(path).create_surface(config.name(), "key", "{}", tour);
    SurfaceRunOptions o = binsearch_surface(config, path);
    o.parallel = k;
    int made = 0;
    o.make_runner = [&](int) {
      ++made;
      return std::make_unique<sim::SimulatedTestbed>(*config.sim(), 1);
    };
    runs[k] = run_surface(id, o);
    CHECK(made == k);
    CHECK(runs[k].live_trials > 0);
    CHECK(runs[k].replayed_trials == 0);
    // Again: every search is finished, nothing runs.
    SurfaceRun again = run_surface(id, o);
    CHECK(again.live_trials == 0);
    CHECK(again.replayed_trials == 0);
    CHECK(again.cost_s == Approx(runs[k].cost_s));
    CHECK(store::Store(path).count_trials() == runs[k].live_trials);
  }
  REQUIRE(runs[1].points.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    INFO("position " << i);
    CHECK(runs[1].points[i].status == runs[2].points[i].status);
    CHECK(runs[1].points[i].peak_rate == runs[2].points[i].peak_rate);
    CHECK(runs[1].points[i].trials == runs[2].points[i].trials);
  }
  CHECK(runs[1].cost_s == Approx(runs[2].cost_s));
  CHECK(runs[1].wall_s == Approx(runs[1].cost_s));
  CHECK(runs[2].wall_s < runs[1].wall_s);
  CHECK(runs[2].wall_s >= runs[2].cost_s / 2 - 1e-6);
  // The wall time is that of the run as it happened: the busier of the two slots.
  double slot_s[2] = {0, 0};
  for (const PointOutcome& p : runs[2].points) slot_s[p.slot] += p.cost_s;
  CHECK(slot_s[0] > 0);
  CHECK(slot_s[1] > 0);
  CHECK(runs[2].wall_s == Approx(std::max(slot_s[0], slot_s[1])));
}

TEST_CASE("a budget stops starting searches — a later run without it finishes the surface") {
  Config config = Config::load(wb::test::kSimConfig);
  std::string path = fresh_store("budget").string();
  std::int64_t id = store::Store(path).create_surface(config.name(), "key", "{}", dopt_tour(config));
  SurfaceRunOptions o = binsearch_surface(config, path);
  o.seeding = true;
  o.factors = &config.factors();
  o.make_runner = [&](int) { return std::make_unique<sim::SimulatedTestbed>(*config.sim(), 1); };
  o.budget_s = 1;  // spent by the first search
  SurfaceRun first = run_surface(id, o);
  CHECK(first.budget_stopped);
  REQUIRE(first.points.size() == 8);
  CHECK(first.points[0].search_id.has_value());
  CHECK_FALSE(first.points[1].search_id.has_value());
  CHECK(first.cost_s >= 1);

  o.budget_s = 0;
  SurfaceRun rest = run_surface(id, o);
  CHECK_FALSE(rest.budget_stopped);
  for (const PointOutcome& p : rest.points) {
    INFO("position " << p.position);
    CHECK(p.search_id.has_value());
    CHECK(p.status == store::SearchState::kFound);
  }
  CHECK(rest.points[0].ran_now == false);  // finished in the first run, not run again
  CHECK(rest.points[0].start_rate == Approx(config.peak().start_rate));
  // With seeding, later searches start at an earlier sample's λ*.
  int seeded = 0;
  for (const PointOutcome& p : rest.points) seeded += p.seeded ? 1 : 0;
  CHECK(seeded == 7);
  CHECK(store::Store(path).count_trials() == first.live_trials + rest.live_trials);
}
