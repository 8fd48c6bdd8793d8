#pragma once
// The workbench store: one SQLite file (WAL), schema versioned with migrations. Every write is its
// own transaction, so a killed controller leaves every completed trial behind. Its parts, one per
// kind of data, share the one database handle the store owns:
//   searches.hpp   searches, their loads and trials          surfaces.hpp  response surfaces
//   models.hpp     truths, expectations, calibrations, trees  probes.hpp    mismatches and probes
//   leases.hpp     leases, owned and resumed searches, started process groups
// Not thread-safe: one Store per thread (SQLite handles concurrent processes).
#include <memory>
#include <string>

#include "store/leases.hpp"
#include "store/models.hpp"
#include "store/probes.hpp"
#include "store/searches.hpp"
#include "store/surfaces.hpp"
#include "store/transaction.hpp"

namespace wb::store {

// Owns the handle; a base of Store so that the handle exists before the parts that use it.
class DatabaseOwner {
 protected:
  explicit DatabaseOwner(const std::string& path);
  ~DatabaseOwner();
  DatabaseOwner(const DatabaseOwner&) = delete;
  DatabaseOwner& operator=(const DatabaseOwner&) = delete;
  std::unique_ptr<Database> database_;
};

class Store : private DatabaseOwner,
              public SearchStore,
              public SurfaceStore,
              public ModelStore,
              public ProbeStore,
              public LeaseStore {
 public:
  // Opens or creates the store at `path` and migrates it to the current schema. Throws Error.
  explicit Store(const std::string& path);

  const std::string& path() const { return path_; }

  // Makes the store calls until commit() one atomic step (a savepoint inside another transaction).
  Transaction transaction();

  // For the store's own tests (store/sqlite.hpp): the raw handle.
  Database& db() { return *database_; }

 private:
  std::string path_;
};

}  // namespace wb::store
