// [[slots]] of a real testbed for map-surface --parallel: parsing and validation only (no process).
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "experiment/surface_slots.hpp"
#include "experiment/testbed.hpp"

namespace fs = std::filesystem;
using namespace wb;

namespace {

// A real testbed with four local hosts and the given [[slots]] text.
Config config_with(const std::string& slots) {
  fs::path d = fs::temp_directory_path() / ("wb_map_surface_slots_" + std::to_string(getpid()));
  fs::create_directories(d);
  fs::path f = d / "slots.toml";
  std::ofstream(f) << R"(
[testbed]
name = "slots"
[factors.threads]
levels = [1, 2, 4]
[peak]
r_sat_ms = 40
width = 0.1
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[hosts]]
name = "c"
[[hosts]]
name = "d"
[sut]
host = "a"
start = "{refserver} --port {port} --threads {threads} --disks 1"
port = 7400
[workload]
hosts = ["b"]
)" << slots;
  return Config::load(f.string());
}

}  // namespace

TEST_CASE("each [[slots]] entry is the testbed with its own SUT host, generators and port") {
  Config c = config_with(R"(
[[slots]]
sut_host = "a"
generators = ["b"]
[[slots]]
sut_host = "c"
generators = ["d"]
port = 7500
)");
  auto tb = validate_testbed(c);
  auto slots = testbed_slots(c, tb, 2);
  REQUIRE(slots.size() == 2);
  REQUIRE(slots[0].has_value());
  CHECK(slots[0]->sut.host == "a");
  CHECK(slots[0]->workload.hosts == std::vector<std::string>{"b"});
  CHECK(slots[0]->sut.port == 7400);
  CHECK(slots[1]->sut.host == "c");
  CHECK(slots[1]->workload.hosts == std::vector<std::string>{"d"});
  CHECK(slots[1]->sut.port == 7500);
  CHECK(slots[1]->sut.start == tb->sut.start);  // everything else is the testbed's
  CHECK(testbed_slots(c, tb, 1).size() == 1);
  CHECK_THROWS_AS(testbed_slots(c, tb, 3), InputError);
  CHECK_THROWS_AS(testbed_slots(c, tb, 0), InputError);
}

TEST_CASE("[[slots]] errors name the file, line and key") {
  Config unknown = config_with("[[slots]]\nsut_host = \"zz\"\ngenerators = [\"b\"]\n");
  auto tb = validate_testbed(unknown);
  try {
    testbed_slots(unknown, tb, 1);
    FAIL("an unknown host was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("slots.toml:") != std::string::npos);
    CHECK(std::string(e.what()).find("sut_host") != std::string::npos);
  }
  Config shared = config_with(
      "[[slots]]\nsut_host = \"a\"\ngenerators = [\"b\"]\n[[slots]]\nsut_host = \"c\"\ngenerators = "
      "[\"b\"]\n");
  CHECK_THROWS_AS(testbed_slots(shared, validate_testbed(shared), 2), InputError);
  Config typo = config_with("[[slots]]\nsut_host = \"a\"\ngenerators = [\"b\"]\nprot = 1\n");
  CHECK_THROWS_AS(testbed_slots(typo, validate_testbed(typo), 1), InputError);
  Config none = config_with("");
  CHECK_THROWS_AS(testbed_slots(none, validate_testbed(none), 2), InputError);
  CHECK(testbed_slots(none, validate_testbed(none), 1).size() == 1);
}

TEST_CASE("the simulated testbed has virtual slots") {
  Config c = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  auto slots = testbed_slots(c, std::nullopt, 4);
  CHECK(slots.size() == 4);
  for (const auto& s : slots) CHECK_FALSE(s.has_value());
}
