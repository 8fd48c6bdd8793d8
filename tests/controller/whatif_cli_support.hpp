#pragma once
// What the whatif CLI tests share: the binary, the shipped configs, and running it for JSON.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sut/child_process.hpp"

namespace wb::test::whatif_cli {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;

inline const std::string kWorkbench = std::string(WB_BINARY_DIR) + "/controller/workbench";
inline const std::string kSimConfig = std::string(WB_SOURCE_DIR) + "/configs/sim.toml";
inline const std::string kDemoConfig = std::string(WB_SOURCE_DIR) + "/configs/demo.toml";

inline fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wb_whatif_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline wb::test::RunResult workbench(std::vector<std::string> args) {
  args.insert(args.begin(), kWorkbench);
  return wb::test::run_to_exit(args, 120s);
}

inline json run_json(const std::vector<std::string>& args) {
  auto r = workbench(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline double rel(double a, double b) { return std::abs(a - b) / b; }

}  // namespace wb::test::whatif_cli
