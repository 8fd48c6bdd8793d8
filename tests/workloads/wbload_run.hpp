#pragma once
// Test helper: the real wbload executable, run to completion with --json and its result parsed.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "child.hpp"
#include "workloads/result.hpp"

namespace wbtest {

inline const std::string kWbload = std::string(WB_BINARY_DIR) + "/workloads/wbload";

// wbload with `args` and --json; requires exit status 0 (its stderr is shown when not).
inline wb::LoadResult run_wbload(std::vector<std::string> args) {
  args.insert(args.begin(), kWbload);
  args.push_back("--json");
  auto r = run_command(args, 90);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return wb::parse_result(r.out);
}

}  // namespace wbtest
