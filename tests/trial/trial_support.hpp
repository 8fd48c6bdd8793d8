#pragma once
// Helpers of the `workbench trial` tests: run the real binary, read its store.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/store_rows.hpp"
#include "tests/support/workbench_cli.hpp"

namespace wb::test {

inline std::filesystem::path fresh_dir(const std::string& name) { return temp_dir("trial", name); }

inline RunResult workbench(std::vector<std::string> args, std::chrono::seconds timeout) {
  return run_workbench(std::move(args), timeout);
}

inline std::vector<std::vector<std::string>> query(const std::string& db_path, const std::string& sql) {
  return query_rows(db_path, sql);
}

}  // namespace wb::test
