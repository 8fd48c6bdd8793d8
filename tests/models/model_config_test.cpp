#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/config.hpp"
#include "core/error.hpp"
#include "models/open_network.hpp"
#include "tests/support/config_text.hpp"

// The [model] section end to end: loaded by wb::Config::load (core/queue_network.cpp parses and
// checks it), solved by models/. Bad sections must fail with one line naming FILE:LINE:KEY.

namespace {

std::string write_config(const std::string& name, const std::string& text) {
  return wb::test::write_temp_config("wb_models_test", name, text);
}

const std::string kGood = R"(
[testbed]
name = "model-test"

[factors.disks]
kind = "resource"
levels = [1, 2, 4]
default = 2

[factors.threads]
levels = [1, 4, 16]
default = 16

[peak]
r_sat_ms = 40
width = 0.1

[[model.center]]
name = "nfsd"
kind = "pool"
servers = "{threads}"

[[model.center]]
name = "cpu"
servers = 2
service_ms = 0.6
within = "nfsd"

[[model.center]]
name = "disk"
servers = "{disks}"
service_ms = 8
visits = 0.7
within = "nfsd"
)";

// 1-based line of the first occurrence of `needle` in kGood.
int line_of(const std::string& needle) {
  auto pos = kGood.find(needle);
  REQUIRE(pos != std::string::npos);
  return 1 +
         static_cast<int>(std::count(kGood.begin(), kGood.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

std::string replaced(const std::string& from, const std::string& to) {
  std::string s = kGood;
  auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

}  // namespace

TEST_CASE("a [model] section loads and predicts") {
  auto c = wb::Config::load(write_config("model_good.toml", kGood));
  REQUIRE(c.model().has_value());
  const auto& net = *c.model();
  REQUIRE(net.centers.size() == 3);
  auto s = c.sample("disks=4,threads=16");
  double lambda_max = wb::saturation_rate(net, s);
  CHECK(lambda_max < 4 * 1000 / 5.6);
  double peak = wb::predicted_peak(net, s, c.peak().r_sat_ms);
  CHECK(peak > 0);
  CHECK(peak < lambda_max);
  CHECK(wb::solve_open(net, s, peak).response_ms == Approx(c.peak().r_sat_ms).epsilon(1e-6));
  // Fewer threads, lower peak.
  CHECK(wb::predicted_peak(net, c.sample("disks=4,threads=1"), 40) < peak);
}

TEST_CASE("bad [model] sections give one line with file:line:key") {
  struct Case {
    std::string text;
    std::string key;      // the key the message must name
    int line;             // its line in the file
    std::string message;  // what the message must say
  };
  const std::vector<Case> cases{
      {replaced("servers = \"{disks}\"", "servers = \"{spindles}\""), "model.center[2].servers",
       line_of("servers = \"{disks}\""), "names unknown factor 'spindles'"},
      {replaced("service_ms = 8", "service_ms = \"{disks} * {size}\""), "model.center[2].service_ms",
       line_of("service_ms = 8"), "names unknown factor 'size'"},
      {replaced("service_ms = 0.6", "service_ms = -0.6"), "model.center[1].service_ms",
       line_of("service_ms = 0.6"), "must be a positive time"},
      {replaced("visits = 0.7", "visits = 0"), "model.center[2].visits", line_of("visits = 0.7"),
       "a center nobody visits"},
      {replaced("within = \"nfsd\"\n\n", "within = \"nfs\"\n\n"), "model.center[1].within",
       line_of("within = \"nfsd\""), "'nfs' is not a pool"},
      {replaced("servers = 2\n", "servers = 2\ndiscipline = \"lifo\"\n"), "model.center[1].discipline",
       line_of("servers = 2") + 1, "must be fcfs, ps or delay"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    std::string path = write_config("model_bad.toml", c.text);
    try {
      wb::Config::load(path);
      FAIL("no error; expected " << c.key);
    } catch (const wb::InputError& e) {
      std::string what = e.what();
      CHECK(what.find('\n') == std::string::npos);
      CHECK_THAT(what, Catch::StartsWith(path + ":" + std::to_string(c.line) + ":" + c.key + ":"));
      CHECK_THAT(what, Catch::Contains(c.message));
    }
  }
  // A pool no center is declared within names the [model] section's center array.
  std::string lonely = replaced("within = \"nfsd\"\n\n", "\n\n");
  lonely = lonely.substr(0, lonely.rfind("within = \"nfsd\"")) + "\n";
  std::string path = write_config("model_lonely.toml", lonely);
  CHECK_THROWS_WITH(wb::Config::load(path),
                    Catch::StartsWith(path + ":") && Catch::Contains("model.center") &&
                        Catch::Contains("pool 'nfsd' has no center declared within it"));
}
