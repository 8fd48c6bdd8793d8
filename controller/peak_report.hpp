#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>

#include "core/config.hpp"
#include "core/search_result.hpp"
#include "experiment/json_values.hpp"  // sample_json

namespace wb {

struct PeakReport {
  std::int64_t search_id = 0;
  const Config* config = nullptr;
  Sample sample;
  Target target;
  std::string policy;
  std::uint64_t seed = 0;
  const SearchResult* result = nullptr;
};

// `workbench peak --json` shape.
nlohmann::json peak_json(const PeakReport& r);
// Human output: λ*, its response CI and accuracy, the table of loads, total cost.
void print_peak(std::ostream& out, const PeakReport& r);

}  // namespace wb
