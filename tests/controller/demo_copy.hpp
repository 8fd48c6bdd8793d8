#pragma once
// configs/demo.toml copied into `dir`/configs for a test against a real refserver: its SUT port
// replaced by a free one, and `dir`/workloads linked to the source tree's, since the config finds
// its mix files relative to its own folder. Returns the copy's path.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

namespace wb::test {

inline std::string demo_copy(const std::filesystem::path& dir) {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/configs/demo.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto pos = text.find("port = 7411");
  REQUIRE(pos != std::string::npos);
  text.replace(pos, 11, "port = " + std::to_string(free_port()));
  std::filesystem::create_directories(dir / "configs");
  std::filesystem::create_directory_symlink(std::filesystem::path(WB_SOURCE_DIR) / "workloads",
                                            dir / "workloads");
  std::filesystem::path p = dir / "configs" / "demo.toml";
  std::ofstream(p) << text;
  return p.string();
}

// A fresh temporary folder `name` holding demo_copy, and the path of a store in it.
struct DemoTestbed {
  std::filesystem::path dir;
  std::string config;
  std::string store;
};
inline DemoTestbed demo_testbed(const std::string& name) {
  std::filesystem::path dir = temp_dir(name, "demo");
  return {dir, demo_copy(dir), (dir / "w.db").string()};
}

}  // namespace wb::test
