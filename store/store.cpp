#include "store/store.hpp"

#include <nlohmann/json.hpp>

#include "store/schema.hpp"
#include "store/sqlite.hpp"
#include "store/store_internal.hpp"

namespace wb::store {

Sample sample_from_json(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  Sample sample;
  for (auto it = j.begin(); it != j.end(); ++it) sample.set(it.key(), it.value().get<std::string>());
  return sample;
}

DatabaseOwner::DatabaseOwner(const std::string& path) : database_(std::make_unique<Database>(path)) {}

DatabaseOwner::~DatabaseOwner() = default;

Store::Store(const std::string& path)
    : DatabaseOwner(path),
      SearchStore(*database_),
      SurfaceStore(*database_, *this),
      ModelStore(*database_),
      ProbeStore(*database_, path),
      LeaseStore(*database_, *this),
      path_(path) {
  migrate(*database_);
}

Transaction Store::transaction() { return Transaction(*database_); }

}  // namespace wb::store
