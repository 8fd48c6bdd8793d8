#pragma once
// Helpers for tests that run `workbench` against real testbeds: queries on a store and a check of
// the process table for leftovers (a free loopback port is in tests/sut/child_process.hpp).
#include <sqlite3.h>

#include <filesystem>
#include <string>

namespace wb::test {

// First column of the first row of `sql` on the store at `db`, as text ("" if no row).
std::string query(const std::filesystem::path& db, const std::string& sql);

// Processes (other than this one) whose command line contains `needle`.
int count_processes(const std::string& needle);

// A fresh, empty temporary directory.
std::filesystem::path fresh_dir(const std::string& name);

// configs/NAME copied into `dir` for a test: its [sut] port set to `port`, and
// {source} and {config_dir} spelled out as the shipped config would resolve them. Returns the path.
std::string shipped_config_copy(const std::string& name, const std::filesystem::path& dir, int port);

}  // namespace wb::test
