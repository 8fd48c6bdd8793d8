#pragma once
#include "store/sqlite.hpp"

namespace wb::store {

// The schema version this build writes. A store with a newer version is refused.
int current_schema_version();

// Brings the store's schema up to current_schema_version() by applying, in one transaction
// each, every migration after the store's PRAGMA user_version.
void migrate(Database& db);

}  // namespace wb::store
