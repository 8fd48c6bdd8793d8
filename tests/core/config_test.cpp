#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/config.hpp"
#include "core/error.hpp"
#include "tests/support/config_text.hpp"

namespace {

std::string write_config(const std::string& name, const std::string& text) {
  return wb::test::write_temp_config("wb_config_test", name, text);
}

const char* kGood = R"(
[testbed]
name = "t"
store = "t.db"

[factors.disks]
levels = [1, 2, 3, 4]

[factors.threads]
levels = [1, 2, 4, 8]
default = 4

[factors.mix]
kind = "workload"
levels = ["web", "db"]

[peak]
r_sat_ms = 40
width = 0.1

[sim]
overhead_s = 5

[[sim.center]]
name = "nfsd"
kind = "pool"
servers = "{threads}"

[[sim.center]]
name = "disk"
servers = "{disks}"
service_ms = 10
within = "nfsd"
)";

}  // namespace

TEST_CASE("a good config loads with defaults and samples") {
  const std::string path = write_config("good.toml", kGood);
  auto c = wb::Config::load(path);
  CHECK(c.name() == "t");
  CHECK(std::filesystem::path(c.store_path()) == std::filesystem::path(path).parent_path() / "t.db");
  REQUIRE(c.factors().size() == 3);
  CHECK(c.factor("mix")->kind == wb::FactorKind::kWorkload);
  CHECK_FALSE(c.factor("mix")->numeric);
  CHECK(c.default_sample().key() == "disks=1,mix=web,threads=4");
  CHECK(c.sample("disks=2.0,mix=db").key() == "disks=2,mix=db,threads=4");
  // A point takes any number for a numeric factor; a sample only its levels.
  CHECK_THROWS_AS(c.sample("threads=6"), wb::InputError);
  CHECK(c.point("threads=6.0,disks=2.5").key() == "disks=2.5,mix=web,threads=6");
  CHECK(c.point("threads=1000").numeric("threads") == 1000);
  CHECK_THROWS_WITH(c.point("threads=six"), Catch::Contains("not a number"));
  CHECK_THROWS_AS(c.point("threads=inf"), wb::InputError);
  CHECK_THROWS_AS(c.point("mix=nosuch"), wb::InputError);  // categorical: levels only
  CHECK(c.peak().r_sat_ms == 40);
  CHECK(c.peak().start_rate == 50);
  REQUIRE(c.sim().has_value());
  CHECK(c.sim()->network.centers.size() == 2);
  CHECK(c.sim()->network.centers[1].servers.eval(c.sample("disks=3")) == 3);
}

TEST_CASE("strawman_step defaults to linear_step and is set apart from it") {
  const auto with_peak_lines = [](const std::string& lines) {
    std::string text(kGood);
    text.insert(text.find("width = 0.1\n") + 12, lines);
    return wb::Config::load(write_config("steps.toml", text)).peak();
  };
  CHECK(with_peak_lines("").strawman_step == 10);
  CHECK(with_peak_lines("linear_step = 20\n").strawman_step == 20);
  const auto apart = with_peak_lines("linear_step = 20\nstrawman_step = 2\n");
  CHECK(apart.strawman_step == 2);
  CHECK(apart.linear_step == 20);
}

TEST_CASE("defaults follow the bounds other keys set (min_trials above 3, min_runlength_s above 600)") {
  const auto with_peak_lines = [](const std::string& lines) {
    std::string text(kGood);
    text.insert(text.find("width = 0.1\n") + 12, lines);
    return wb::Config::load(write_config("bounds.toml", text)).peak();
  };
  // Found by the config fuzzer: min_trials = 14 left peak_min_trials at its default 3.
  const auto p = with_peak_lines("min_trials = 14\n");
  CHECK(p.peak_min_trials == 14);
  CHECK(p.max_trials == 30);
  const auto q = with_peak_lines("min_trials = 40\n");
  CHECK(q.max_trials == 40);
  CHECK(q.peak_min_trials == 40);
  const auto r = with_peak_lines("max_trials = 2\n");
  CHECK(r.peak_min_trials == 2);
  CHECK(with_peak_lines("min_runlength_s = 1000\n").max_runlength_s == 1000);
  CHECK(with_peak_lines("").peak_min_trials == 3);
}

TEST_CASE("sample lists (--set) name the unknown factor and the levels") {
  auto c = wb::Config::load(write_config("good.toml", kGood));
  CHECK_THROWS_WITH(c.sample("cpus=2"), Catch::Contains("unknown factor 'cpus'"));
  CHECK_THROWS_WITH(c.sample("disks=5"), Catch::Contains("levels: 1, 2, 3, 4"));
  CHECK_THROWS_WITH(c.sample("disks=1,disks=2"), Catch::Contains("twice"));
  CHECK_THROWS_AS(c.sample("disks"), wb::InputError);
}

TEST_CASE("a factor declared between = true takes values between its levels, not beyond them") {
  std::string text(kGood);
  text.replace(text.find("default = 4"), 11, "default = 4\nbetween = true");
  auto c = wb::Config::load(write_config("between.toml", text));
  CHECK(c.factor("threads")->between);
  CHECK_FALSE(c.factor("disks")->between);
  CHECK(c.sample("threads=6").value("threads") == "6");
  CHECK(c.sample("threads=2.5").numeric("threads") == 2.5);
  CHECK_THROWS_WITH(c.sample("threads=9"), Catch::Contains("outside its levels' range [1, 8]"));
  CHECK_THROWS_WITH(c.sample("threads=x"), Catch::Contains("is not a number"));
  CHECK_THROWS_WITH(c.sample("disks=2.5"), Catch::Contains("levels: 1, 2, 3, 4"));
}

TEST_CASE("config errors name file, line and key") {
  struct Case {
    std::string text;
    std::string expect;
  };
  std::string base(kGood);
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    auto pos = s.find(from);
    REQUIRE(pos != std::string::npos);
    return s.replace(pos, from.size(), to);
  };
  std::vector<Case> cases{
      {"[peak\nr_sat_ms = 1", "bad.toml:1:"},
      {replace("r_sat_ms = 40\n", ""), ":17:peak.r_sat_ms: required key is missing"},
      {replace("width = 0.1", "width = 2"), ":19:peak.width: must be between 0 and 1"},
      {replace("width = 0.1", "width = 0.1\nspeed = 3"), ":20:peak.speed: unknown key"},
      {replace("width = 0.1", "width = 0.1\nstrawman_step = 0"),
       ":20:peak.strawman_step: must be a positive rate"},
      {replace("servers = \"{disks}\"", "servers = \"{spindles}\""),
       "sim.center[1].servers: expression '{spindles}' names unknown factor"},
      {replace("service_ms = 10", "service_ms = -1"), "sim.center[1].service_ms: must be a positive"},
      {replace("default = 4", "default = 3"), "factors.threads.default: '3' is not one of the levels"},
      {replace("[peak]\nr_sat_ms = 40\nwidth = 0.1\n", ""), "missing [peak] section"},
      {replace("[testbed]", "[testbedd]"), ":2:testbedd: unknown section"},
      {replace("levels = [\"web\", \"db\"]", "levels = [\"web\", \"db\"]\nbetween = true"),
       ":16:factors.mix.between: only a numeric factor has values between its levels"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    std::string path = write_config("bad.toml", c.text);
    try {
      wb::Config::load(path);
      FAIL("no error for: " << c.expect);
    } catch (const wb::InputError& e) {
      std::string what = e.what();
      CHECK_THAT(what, Catch::Contains(c.expect));
      CHECK(what.find('\n') == std::string::npos);
      CHECK(what.rfind(path, 0) == 0);
    }
  }
}

TEST_CASE("a config parsed from its text reads and fails like the file") {
  std::string path = write_config("good.toml", kGood);
  auto from_text = wb::Config::parse(kGood, path);
  auto from_file = wb::Config::load(path);
  CHECK(from_text.name() == from_file.name());
  CHECK(from_text.store_path() == from_file.store_path());
  CHECK(from_text.factor_names() == from_file.factor_names());
  CHECK(from_text.default_sample().key() == from_file.default_sample().key());
  for (std::string bad : {std::string("[peak\nr_sat_ms = 1"), std::string(kGood) + "\n[peak.extra]\n"}) {
    INFO(bad);
    std::string bad_path = write_config("bad.toml", bad);
    std::string text_error, file_error;
    try {
      wb::Config::parse(bad, bad_path);
    } catch (const wb::InputError& e) {
      text_error = e.what();
    }
    try {
      wb::Config::load(bad_path);
    } catch (const wb::InputError& e) {
      file_error = e.what();
    }
    CHECK(text_error.rfind(bad_path + ":", 0) == 0);
    CHECK(text_error == file_error);
  }
}
