#pragma once
// A picker driven by hand, as the binsearch and picker tests step through one: the picker for a
// mean response of 40 ms, and scripted readings fed to it one at a time.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "policies/load_picker.hpp"

namespace wb::test {

// The picker `policy` with first load `start_rate`, aiming at a mean response of 40 ms (width 0).
inline std::unique_ptr<LoadPicker> mean_40ms_picker(const std::string& policy, double start_rate) {
  PeakConfig peak;
  peak.region = PeakRegion::mean(40, 0);
  return make_picker(policy, peak, start_rate);
}

// Feeds `readings` to `picker` in turn, appending each to `history`; before each one the picker
// must ask for that reading's rate.
inline void feed_readings(LoadPicker& picker, std::vector<TestLoad>& history,
                          const std::vector<TestLoad>& readings) {
  for (const TestLoad& reading : readings) {
    INFO("the load before " << history.size() << " readings");
    REQUIRE(picker.next(history) == reading.rate);
    history.push_back(reading);
  }
}

}  // namespace wb::test
