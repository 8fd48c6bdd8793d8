// Every numeric config value is checked where it enters: NaN, ±inf, whole numbers beyond their
// type and values no trial can run are one InputError "FILE:LINE:KEY: ..." from loading the config
// (Config::load, parse_testbed, probe_config: what commands do before they open the store).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/config.hpp"
#include "core/error.hpp"
#include "harness/testbed_config.hpp"
#include "models/probe_plan.hpp"
#include "tests/core/bad_values.hpp"

namespace fs = std::filesystem;

namespace {

std::string write(const std::string& name, const std::string& text) {
  fs::path dir = fs::temp_directory_path() / "wb_config_values_test";
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

// What a command validates before it opens the store.
void load_everything(const std::string& path) {
  wb::Config c = wb::Config::load(path);
  (void)wb::parse_testbed(c);
  (void)wb::probe_config(c);
}

}  // namespace

TEST_CASE("the base config of the bad-value table is valid") {
  const std::string path = write("base.toml", wb::test::kBase);
  REQUIRE_NOTHROW(load_everything(path));
  wb::Config c = wb::Config::load(path);
  CHECK(c.peak().start_rate == 100);
  CHECK(wb::parse_testbed(c).workload.connections == 16);
}

TEST_CASE("bad numbers in a config are one line naming file, line and key") {
  for (const auto& c : wb::test::bad_values()) {
    int line = 0;
    const std::string text = wb::test::apply(c, &line);
    INFO(c.to);
    REQUIRE_FALSE(text.empty());  // `from` occurs exactly once in the base
    const std::string path = write("bad.toml", text);
    try {
      load_everything(path);
      FAIL("accepted");
    } catch (const wb::InputError& e) {
      const std::string what = e.what();
      CHECK_THAT(what, Catch::StartsWith(path + ":" + std::to_string(line) + ":" + c.key + ": "));
      CHECK(what.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("a level that cannot be a server count is named with the sample that has it") {
  int line = 0;
  std::string text = wb::test::apply({"levels = [1, 2, 4]", "levels = [1, 1.5, 2]", ""}, &line);
  const std::string path = write("levels.toml", text);
  CHECK_THROWS_WITH(wb::Config::load(path),
                    Catch::Contains("sim.center[1].servers: '{disks}' is 1.5 for disks=1.5; must be a whole "
                                    "number of servers"));
  text = wb::test::apply({"levels = [1, 2]", "levels = [1, 2.5]", ""}, &line);
  const std::string refserver = write("refserver.toml", text);
  wb::Config c = wb::Config::load(refserver);
  CHECK_THROWS_WITH(wb::parse_testbed(c),
                    Catch::Contains("sut.start: refserver refuses its arguments for io=2.5: "));
}

TEST_CASE("expressions are checked for every combination of the levels they depend on") {
  // 2/disks*threads is a whole number except at disks=4 with threads=1: only the combination fails.
  int line = 0;
  std::string text = wb::test::apply({"servers = \"{threads}\"\n\n[[sim.center]]",
                                      "servers = \"2 / {disks} * {threads}\"\n\n[[sim.center]]", ""},
                                     &line);
  CHECK_THROWS_WITH(wb::Config::load(write("combo.toml", text)),
                    Catch::Contains("is 0.5 for disks=4,threads=1;"));
}
