#pragma once
// Test helper: a config text written to a file for a test that loads it.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace wb::test {

// `text` written as `name` into the temp directory's `folder`, one per process (ctest -j runs the
// cases of one binary side by side, and they reuse names); returns the file's path.
inline std::string write_temp_config(const std::string& folder, const std::string& name,
                                     const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / (folder + "." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace wb::test
