// Bad numbers given to the workbench binary, in a config or on its command line: exit 2 within a
// second, one line on stderr that names where (file:line:key for configs, the flag otherwise),
// nothing on stdout, and no store created.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "tests/core/bad_values.hpp"
#include "tests/support/workbench_cli.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using namespace wb::test;

namespace {

// Runs workbench and checks the contract for bad input; returns its stderr.
std::string refused(std::vector<std::string> args) {
  args.insert(args.begin(), kWorkbench);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = wb::test::run_to_exit(args, 30s);
  const auto took = std::chrono::steady_clock::now() - t0;
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(took < 1s);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.rfind("workbench: ", 0) == 0);
  return r.err;
}

}  // namespace

TEST_CASE("workbench peak refuses every bad config number at once, naming file, line and key") {
  const fs::path dir = temp_dir("bad_values", "config");
  for (const auto& c : wb::test::bad_values()) {
    int line = 0;
    const std::string text = wb::test::apply(c, &line);
    INFO(c.to);
    REQUIRE_FALSE(text.empty());
    const fs::path config = dir / "bad.toml";
    std::ofstream(config) << text;
    const std::string err = refused({"peak", "--config", config.string()});
    CHECK_THAT(err, Catch::StartsWith("workbench: " + config.string() + ":" + std::to_string(line) + ":" +
                                      c.key + ": "));
    CHECK_FALSE(fs::exists(dir / "values.db"));
  }
}

TEST_CASE("workbench refuses NaN, infinite, overflowing and out-of-range numbers on its command line") {
  const fs::path dir = temp_dir("bad_values", "flags");
  const std::string store = (dir / "new.db").string();
  const std::vector<std::vector<std::string>> bad{
      {"trial", "--rate", "nan"},
      {"trial", "--rate", "inf"},
      {"trial", "--rate", "-inf"},
      {"trial", "--rate", "1e999"},
      {"trial", "--rate", "1e12"},
      {"trial", "--rate", "50", "--runlength", "nan"},
      {"trial", "--rate", "50", "--runlength", "inf"},
      {"trial", "--rate", "50", "--trials", "4294967298"},
      {"trial", "--rate", "50", "--seed", "-1"},
      {"peak", "--seed", "-1"},
      {"peak", "--seed", "18446744073709551616"},
      {"peak", "--seed", "1.5"},
      {"map-surface", "--factors", "disks,threads", "--budget", "nan"},
      {"map-surface", "--factors", "disks,threads", "--budget", "inf"},
      {"map-surface", "--factors", "disks,threads", "--points", "4294967304"},
      {"map-surface", "--factors", "disks,threads", "--parallel", "4294967297"},
      {"map-surface", "--factors", "disks,threads", "--seed", "nan"},
      {"model", "calibrate", "--rate", "nan"},
      {"model", "calibrate", "--rate", "50", "--runlength", "inf"},
      {"whatif", "--rate", "nan"},
      {"whatif", "--clients", "4294967297"},
      {"whatif", "--clients", "2", "--think", "inf"},
      {"agent", "--once", "--max", "4294967297"},
      {"probe", "run", "9223372036854775808"},
      {"probe", "cancel", "-1"},
  };
  for (auto args : bad) {
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    INFO(shown);
    // Every subcommand above takes --config; the store must not appear.
    args.insert(args.end(), {"--config", kSimConfig, "--store", store});
    refused(args);
    CHECK_FALSE(fs::exists(store));
  }
}
