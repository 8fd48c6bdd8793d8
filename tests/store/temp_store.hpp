#pragma once
// A fresh store file in a folder of its own under the system temp folder, removed with the value.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "store/store.hpp"

namespace wb::test {

// A fresh, empty folder wb_store_NAME_PID under the system temp folder.
inline std::filesystem::path fresh_store_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("wb_store_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// The path of a store file w.db not yet created, in fresh_store_dir(name).
inline std::string fresh_store_path(const std::string& name) {
  return (fresh_store_dir(name) / "w.db").string();
}

// A binsearch search on `testbed` at confidence 0.95 and accuracy 0.9, of the sample that sets
// `factor` to `value`: the record the searches and lease tests open and read back.
inline store::SearchRecord search_record(const std::string& testbed, const std::string& factor,
                                         const std::string& value, std::int64_t seed,
                                         const std::string& options_json) {
  store::SearchRecord r;
  r.testbed = testbed;
  r.sample.set(factor, value);
  r.confidence = 0.95;
  r.accuracy = 0.9;
  r.policy = "binsearch";
  r.seed = seed;
  r.options_json = options_json;
  return r;
}

struct TempStore {
  std::filesystem::path dir;
  store::Store store;
  explicit TempStore(const std::string& name) : dir(fresh_store_dir(name)), store((dir / "w.db").string()) {}
  ~TempStore() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempStore(const TempStore&) = delete;
  TempStore& operator=(const TempStore&) = delete;
};

}  // namespace wb::test
