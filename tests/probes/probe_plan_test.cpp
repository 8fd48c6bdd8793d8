// Probe planning and [probing] [000 §3.3.2].
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "models/probe_plan.hpp"

using namespace wb;
namespace fs = std::filesystem;

namespace {

Factor numeric_factor(const std::string& name, std::vector<double> levels) {
  Factor f;
  f.name = name;
  for (double v : levels) {
    f.levels.push_back(format_number(v));
    f.numeric_levels.push_back(v);
  }
  return f;
}

std::vector<Factor> factors() {
  return {numeric_factor("disks", {1, 2, 3, 4}), numeric_factor("threads", {1, 2, 4, 8, 16, 32, 64, 100})};
}

Sample at(const std::string& disks, const std::string& threads) {
  Sample s;
  s.set("disks", disks);
  s.set("threads", threads);
  return s;
}

std::string sim_toml() {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path write_config(const std::string& name, const std::string& extra) {
  fs::path p =
      fs::temp_directory_path() / ("wb_probe_plan_" + name + "_" + std::to_string(getpid()) + ".toml");
  std::ofstream(p) << sim_toml() << "\n" << extra;
  return p;
}

}  // namespace

TEST_CASE("probes vary the top attributes over their levels around the mismatch point") {
  std::vector<RankedAttribute> ranked{{"disks", 0.8}, {"threads", 0.1}};
  auto probes = plan_probes(at("4", "16"), ranked, factors(), {}, 2);
  // disks: 3 other levels; threads: 7 other levels.
  REQUIRE(probes.size() == 10);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(probes[i].attribute == "disks");
    CHECK(probes[i].sample.value("threads") == "16");
  }
  // Nearest level first within an attribute; every disks probe before any threads probe.
  CHECK(probes[0].sample.value("disks") == "3");
  CHECK(probes[1].sample.value("disks") == "2");
  CHECK(probes[2].sample.value("disks") == "1");
  for (std::size_t i = 3; i < probes.size(); ++i) {
    CHECK(probes[i].attribute == "threads");
    CHECK(probes[i].sample.value("disks") == "4");
    CHECK(probes[i].sample.value("threads") != "16");
    CHECK(probes[i].priority < probes[2].priority);
  }
  CHECK((probes[3].sample.value("threads") == "8" || probes[3].sample.value("threads") == "32"));
}

TEST_CASE("probe planning skips measured and planned samples and honours top") {
  std::vector<RankedAttribute> ranked{{"disks", 0.8}, {"threads", 0.1}};
  std::set<std::string> taken{at("3", "16").key(), at("1", "16").key()};
  auto probes = plan_probes(at("4", "16"), ranked, factors(), taken, 1);
  REQUIRE(probes.size() == 1);
  CHECK(probes[0].sample == at("2", "16"));
  // An attribute that is not a factor (or has one level) plans nothing.
  CHECK(plan_probes(at("4", "16"), {{"cache", 1.0}}, factors(), {}, 1).empty());
}

TEST_CASE("a radius keeps probes to the levels near the mismatch point") {
  std::vector<RankedAttribute> ranked{{"threads", 0.8}};
  auto probes = plan_probes(at("4", "16"), ranked, factors(), {}, 1, 2);
  std::set<std::string> levels;
  for (const auto& p : probes) levels.insert(p.sample.value("threads"));
  CHECK(levels == std::set<std::string>{"4", "8", "32", "64"});
  // At the edge of the levels only one side exists.
  auto edge = plan_probes(at("4", "100"), ranked, factors(), {}, 1, 2);
  REQUIRE(edge.size() == 2);
  CHECK(edge[0].sample.value("threads") == "64");
  CHECK(edge[1].sample.value("threads") == "32");
}

TEST_CASE("the probing section is read with defaults, and bad keys name file, line and key") {
  ProbeConfig d = probe_config(Config::load(write_config("none", "").string()));
  CHECK(d.tolerance == 0.15);
  CHECK(d.window_start_s == 0);
  CHECK(d.top_attributes == 2);
  CHECK(d.radius == 2);
  ProbeConfig c = probe_config(Config::load(
      write_config("ok", "[probing]\ntolerance = 0.2\nwindow_start_s = 3600\ntop_attributes = 1\n")
          .string()));
  CHECK(c.tolerance == 0.2);
  CHECK(c.window_start_s == 3600);
  CHECK(c.top_attributes == 1);
  CHECK(probe_not_before(c, 1000) == 4600);

  fs::path bad = write_config("bad", "[probing]\ntolerance = -1\n");
  try {
    probe_config(Config::load(bad.string()));
    FAIL("no error");
  } catch (const InputError& e) {
    std::string what = e.what();
    CHECK(what.find(bad.string()) != std::string::npos);
    CHECK(what.find("probing.tolerance") != std::string::npos);
  }
  fs::path typo = write_config("typo", "[probing]\nwindow_start = 5\n");
  CHECK_THROWS_AS(probe_config(Config::load(typo.string())), InputError);
}

TEST_CASE("boundary probes halve the gap between the two sides of a split on a factor, by level") {
  // A tree over (disks, threads): λ* at 0.4 of the expectation from 32 threads up, measured at
  // threads 1, 2, 4 and 32, 64, 100 (disks 4): the split lies somewhere between 4 and 32.
  std::vector<Attribute> schema{{"disks", AttributeKind::kNumeric, {}},
                                {"threads", AttributeKind::kNumeric, {}}};
  ZCartOptions o;
  o.min_leaf = 3;
  auto tree_of = [&](const std::vector<double>& threads) {
    ZCart t(schema, o);
    std::vector<Observation> obs;
    for (double th : threads) obs.push_back({{4, th}, 100, th >= 32 ? 40.0 : 100.0});
    t.fit(obs);
    return t;
  };
  ZCart t = tree_of({1, 2, 4, 32, 64, 100});
  REQUIRE(t.nodes()[0].attr == 1);
  std::vector<PlannedProbe> p = plan_boundary_probes(t, factors(), 0);
  // 8 and 16 lie between; the lower middle one, once (both sides' rows give the same sample).
  REQUIRE(p.size() == 1);
  CHECK(p[0].sample == at("4", "8"));
  CHECK(p[0].attribute == "threads");
  CHECK(p[0].node == 0);
  CHECK(p[0].priority == 0);
  // Measured at 8 (below the boundary), the gap is 8..32 and 16 is next; then none is left.
  p = plan_boundary_probes(tree_of({1, 2, 4, 8, 32, 64, 100}), factors(), 0);
  REQUIRE(p.size() == 1);
  CHECK(p[0].sample == at("4", "16"));
  CHECK(plan_boundary_probes(tree_of({1, 2, 4, 8, 16, 32, 64, 100}), factors(), 0).empty());
  // An attribute that is not a factor (or a tree over other names) plans nothing.
  std::vector<Factor> other{numeric_factor("cpus", {1, 2}), numeric_factor("threads", {1, 2})};
  CHECK(plan_boundary_probes(t, other, 0).empty());
}

TEST_CASE("bisecting probes halve the gap between a deviating and an agreeing sample along each factor") {
  // Deviating at threads 32 and 100 with four disks; agreeing at threads 1 (four disks) and at
  // two disks, threads 32.
  std::vector<MeasuredSample> measured{
      {at("4", "32"), true}, {at("4", "100"), true}, {at("4", "1"), false}, {at("2", "32"), false}};
  std::vector<PlannedProbe> planned = plan_bisecting_probes(measured, factors(), 0.5);
  std::set<std::string> keys;
  for (const auto& p : planned) {
    keys.insert(p.sample.key());
    CHECK(p.priority == 0.5);
    CHECK(p.node == -1);
  }
  // threads: between 1 (agrees) and 32 (deviates) the levels 2, 4, 8, 16; the middle by index is 4.
  // disks: between 2 (agrees) and 4 (deviates) only 3. Nothing between two deviating samples
  // (32 and 100) and nothing beyond the last measured one.
  CHECK(keys == std::set<std::string>{"disks=4,threads=4", "disks=3,threads=32"});
  for (const auto& p : planned)
    CHECK(p.attribute == (p.sample.value("threads") == "4" ? "threads" : "disks"));

  // Measured at 4 and 8 (both agree): the gap is 8..32, the next probe 16; at 16 too, none.
  measured.push_back({at("4", "4"), false});
  measured.push_back({at("4", "8"), false});
  measured.push_back({at("3", "32"), true});
  planned = plan_bisecting_probes(measured, factors(), 0);
  REQUIRE(planned.size() == 1);
  CHECK(planned[0].sample.key() == "disks=4,threads=16");
  measured.push_back({at("4", "16"), false});
  CHECK(plan_bisecting_probes(measured, factors(), 0).empty());
}

TEST_CASE("a factor declared between = true is bisected below its levels' spacing") {
  // Threads 16 agrees, 32 deviates, no level between: with between = true the probes go to 24,
  // then (24 agreeing) 28, 30, 31, and stop at adjacent whole numbers.
  std::vector<Factor> f = factors();
  for (Factor& x : f) x.between = x.name == "threads";
  std::vector<MeasuredSample> measured{{at("4", "16"), false}, {at("4", "32"), true}};
  CHECK(plan_bisecting_probes(measured, factors(), 0).empty());  // levels only: nothing between
  std::vector<std::string> probes;
  for (int step = 0; step < 8; ++step) {
    std::vector<PlannedProbe> planned = plan_bisecting_probes(measured, f, 0);
    if (planned.empty()) break;
    REQUIRE(planned.size() == 1);
    probes.push_back(planned[0].sample.value("threads"));
    measured.push_back({planned[0].sample, false});  // each probe agrees: the boundary is higher
  }
  CHECK(probes == std::vector<std::string>{"24", "28", "30", "31"});

  // A continuous factor (levels that are not all whole numbers): midpoints, down to 1/64 of the
  // levels' range.
  Factor ratio = numeric_factor("ratio", {0.1, 1});
  ratio.between = true;
  Sample lo, hi;
  lo.set("ratio", "0.5");
  hi.set("ratio", "1");
  std::vector<PlannedProbe> planned = plan_bisecting_probes({{lo, false}, {hi, true}}, {ratio}, 0);
  REQUIRE(planned.size() == 1);
  CHECK(planned[0].sample.numeric("ratio") == Approx(0.75));
  lo.set("ratio", "0.99");
  CHECK(plan_bisecting_probes({{lo, false}, {hi, true}}, {ratio}, 0).empty());
}
