#pragma once
// Test helper: the real workbench binary and the shipped configs as the CLI tests reach them, a
// fresh temporary folder per test, and a file's text.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
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

// workbench with `args`, which it must refuse: exit 2 and one line on stderr that contains
// `expect`. Returns the run.
inline RunResult check_refused(std::vector<std::string> args, const std::string& expect,
                               std::chrono::milliseconds timeout) {
  auto r = run_workbench(std::move(args), timeout);
  INFO(expect << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(expect));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  return r;
}

// configs/sim.toml with its `runlength_s = 60` replaced, so that each simulated trial takes real
// time, written to `dir`/slow.toml. without_model: also cut everything from the first
// [[model.center]] on (the end of the file).
inline std::filesystem::path slow_sim_config(const std::filesystem::path& dir, int runlength_s,
                                             bool without_model) {
  std::string text = read_text(kSimConfig);
  if (without_model) {
    auto model = text.find("[[model.center]]");
    REQUIRE(model != std::string::npos);
    text.erase(model);
  }
  const std::string key = "runlength_s = 60";
  auto at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.replace(at, key.size(), "runlength_s = " + std::to_string(runlength_s));
  std::filesystem::path out = dir / "slow.toml";
  std::ofstream(out) << text;
  return out;
}

// Waits `delay`, then SIGKILLs `child` unless it exited by then; true if it died of that SIGKILL
// (false if it finished first: its exit code stays for wait_exit).
inline bool killed_after(ChildProcess& child, std::chrono::milliseconds delay) {
  std::this_thread::sleep_for(delay);
  if (child.wait_exit(std::chrono::milliseconds(0))) return false;
  child.send_signal(SIGKILL);
  auto code = child.wait_exit(std::chrono::seconds(30));
  REQUIRE(code);
  return *code == 128 + SIGKILL;
}

}  // namespace wb::test
