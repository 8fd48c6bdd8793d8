#pragma once
// Test helper: the real workbench binary and the shipped configs as the CLI tests reach them, a
// fresh temporary folder per test, and a file's text.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sut/child_process.hpp"

namespace wb::test {

inline const std::string kWorkbench = std::string(WB_BINARY_DIR) + "/controller/workbench";
inline const std::string kSimConfig = std::string(WB_SOURCE_DIR) + "/configs/sim.toml";
inline const std::string kDemoConfig = std::string(WB_SOURCE_DIR) + "/configs/demo.toml";

// A fresh, empty folder wb_<prefix>_<name>_<pid> in the temp directory: the pid keeps parallel
// runs of the suite apart, the prefix the test files.
inline std::filesystem::path temp_dir(const std::string& prefix, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path d = fs::temp_directory_path() / ("wb_" + prefix + "_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// workbench with `args`, killed if it runs past `timeout` (a bound against a hang).
inline RunResult run_workbench(std::vector<std::string> args, std::chrono::milliseconds timeout) {
  args.insert(args.begin(), kWorkbench);
  return run_to_exit(args, timeout);
}

}  // namespace wb::test
