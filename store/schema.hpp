#pragma once
#include "store/sqlite.hpp"

namespace wb::store {

// The schema version this build writes. A store with a newer version is refused.
int current_schema_version();

// Brings the store's schema up to `to_version` (default current_schema_version()) by applying, in
// one transaction each, every migration after the store's PRAGMA user_version. Tests build the
// stores of earlier versions with it.
void migrate(Database& db, int to_version = -1);

}  // namespace wb::store
