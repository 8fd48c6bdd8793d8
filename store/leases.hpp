#pragma once
// Ownership (DESIGN.md "Security and failure"): leases on searches, surface points and probes,
// searches opened or resumed under a lease, and the process groups a controller started.
// One part of store::Store (store/store.hpp), over the database handle the store owns.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/owner.hpp"
#include "store/searches.hpp"

namespace wb::store {

class Database;

class LeaseStore {
 public:
  explicit LeaseStore(Database& db, SearchStore& searches) : db_(db), searches_(searches) {}

  // Leases (DESIGN.md "Security and failure"): one owner per search ("search:ID"), surface point
  // ("point:SURFACE:POSITION") and probe ("probe:ID"). Times are unix seconds of the owner's clock.
  struct LeaseRow {
    std::string resource;
    OwnerId owner;
    double acquired_at = 0, heartbeat_at = 0;
    bool cancel = false;  // someone asked the owner to stop
  };
  // Whether a holder may be taken over because it is dead. The store never looks at processes:
  // the caller judges (experiment/leases.hpp).
  using HolderDead = std::function<bool(const LeaseRow&)>;
  // Takes `resource` for `owner` in one write transaction (a savepoint inside the caller's): when
  // it is free, already `owner`'s, or held by an owner `dead` judges dead. Returns nullopt when
  // taken, else the live holder's lease (nothing changed).
  std::optional<LeaseRow> acquire_lease(const std::string& resource, const OwnerId& owner, double now,
                                        const HolderDead& dead);
  // Gives up `resource` if `owner` holds it.
  void release_lease(const std::string& resource, const OwnerId& owner);
  // Gives up every lease of `owner`.
  void release_leases(const OwnerId& owner);
  // The heartbeat: renews every lease of `owner` and returns those someone asked it to stop.
  std::vector<std::string> renew_leases(const OwnerId& owner, double now);
  std::optional<LeaseRow> lease(const std::string& resource);
  // Asks the holder of `resource` to stop (it sees the request at its next heartbeat); false when
  // nobody holds it.
  bool request_cancel(const std::string& resource);

  // A search opened for one controller: new, or an unfinished one resumed. `holder` is set (and
  // nothing changed) when a live controller runs the matching search now.
  struct OpenedSearch {
    std::int64_t id = 0;
    bool resumed = false;
    std::optional<LeaseRow> holder;
  };
  // In one write transaction: resumes the newest unfinished search (running or interrupted, not a
  // surface's) matching `r` under `owner`'s lease "search:ID" unless a live owner holds it; else begins
  // a new search under a new lease.
  OpenedSearch open_search(const SearchRecord& r, const OwnerId& owner, double now, const HolderDead& dead);
  // begin_search and its lease in one transaction (a search never exists without its owner).
  std::int64_t begin_owned_search(const SearchRecord& r, const OwnerId& owner, double now);
  // Sets a search's status (running when resumed, interrupted when its controller stopped).
  void set_search_status(std::int64_t id, SearchState state);
  // Marks every search still "running" whose lease is missing or held by a dead owner as
  // "interrupted" (and drops the dead lease). Returns their ids.
  std::vector<std::int64_t> mark_interrupted(const HolderDead& dead);

  // Process groups a controller started on a testbed and has not stopped yet (DESIGN.md "Security and
  // failure"), so rows left behind name what a dead controller may have left running. Unsigned start
  // times are stored as their 64-bit pattern.
  struct ProcessRow {
    std::int64_t id = 0;  // set by the store
    std::string testbed;
    std::string host;  // "local" (the owner's machine) or user@host:port
    std::int64_t pgid = 0;
    std::uint64_t start_ticks = 0;  // the group leader's, on its host
    std::string command;
    OwnerId owner;                // the controller that started it
    std::int64_t started_at = 0;  // unix seconds; set by the store when 0
  };
  std::int64_t add_process(const ProcessRow& row);
  void remove_process(std::int64_t id);
  // The rows of `testbed`, oldest first.
  std::vector<ProcessRow> processes(const std::string& testbed);

 private:
  Database& db_;
  SearchStore& searches_;
};

}  // namespace wb::store
