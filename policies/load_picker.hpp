#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/search_result.hpp"

namespace wb {

// Chooses the next test load of a search from the loads tried so far [003 §3.3 Step 2]. A picker
// is stateful and serves one search; it never runs trials itself.
class LoadPicker {
 public:
  virtual ~LoadPicker() = default;
  // `history` holds every load tried so far, each with a verdict of kBelow or kAbove (the search
  // ends at a peak). Returns nullopt when the picker has nothing left to try (its bracket has
  // collapsed without a load in the peak-rate region).
  virtual std::optional<double> next(const std::vector<TestLoad>& history) = 0;
};

// The picker names `workbench peak --policy` accepts.
std::vector<std::string> picker_names();

// Makes the named picker; `start_rate` is its first load. Throws InputError for an unknown name.
std::unique_ptr<LoadPicker> make_picker(const std::string& name, const PeakConfig& peak, double start_rate);

}  // namespace wb
