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

#include "tests/support/workbench_cli.hpp"

namespace wb::test::whatif_cli {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;

using wb::test::kDemoConfig;
using wb::test::kSimConfig;
using wb::test::kWorkbench;

inline fs::path fresh_dir(const std::string& name) { return temp_dir("whatif", name); }

inline wb::test::RunResult workbench(std::vector<std::string> args) {
  return run_workbench(std::move(args), 120s);
}

inline json run_json(const std::vector<std::string>& args) {
  auto r = workbench(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

inline std::string read_file(const fs::path& p) { return read_text(p); }

inline double rel(double a, double b) { return std::abs(a - b) / b; }

}  // namespace wb::test::whatif_cli
