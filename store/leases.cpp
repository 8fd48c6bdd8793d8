#include "store/leases.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "store/sqlite.hpp"

namespace wb::store {

namespace {

constexpr const char* kLeaseColumns =
    "resource, owner_host, owner_pid, owner_start, acquired_at, heartbeat_at, cancel";

LeaseStore::LeaseRow read_lease(const Statement& s) {
  LeaseStore::LeaseRow l;
  l.resource = s.column_text(0);
  l.owner.host = s.column_text(1);
  l.owner.pid = s.column_int(2);
  l.owner.start_ticks = static_cast<std::uint64_t>(s.column_int(3));
  l.acquired_at = s.column_double(4);
  l.heartbeat_at = s.column_double(5);
  l.cancel = s.column_int(6) != 0;
  return l;
}

std::string search_resource(std::int64_t id) { return fmt::format("search:{}", id); }

}  // namespace

std::optional<LeaseStore::LeaseRow> LeaseStore::lease(const std::string& resource) {
  Statement s = db_.prepare(fmt::format("SELECT {} FROM leases WHERE resource = ?1", kLeaseColumns));
  s.bind(1, resource);
  if (!s.step()) return std::nullopt;
  return read_lease(s);
}

std::optional<LeaseStore::LeaseRow> LeaseStore::acquire_lease(const std::string& resource,
                                                              const OwnerId& owner, double now,
                                                              const HolderDead& dead) {
  Transaction tx(db_);
  if (std::optional<LeaseRow> held = lease(resource)) {
    if (held->owner == owner) {
      Statement u = db_.prepare("UPDATE leases SET heartbeat_at = ?2 WHERE resource = ?1");
      u.bind(1, resource).bind(2, now).run();
      tx.commit();
      return std::nullopt;
    }
    if (!dead(*held)) return held;
  }
  Statement u = db_.prepare(
      "INSERT OR REPLACE INTO leases (resource, owner_host, owner_pid, owner_start, acquired_at, "
      "heartbeat_at, "
      "cancel) VALUES (?1, ?2, ?3, ?4, ?5, ?5, 0)");
  u.bind(1, resource)
      .bind(2, owner.host)
      .bind(3, owner.pid)
      .bind(4, static_cast<std::int64_t>(owner.start_ticks))
      .bind(5, now)
      .run();
  tx.commit();
  return std::nullopt;
}

void LeaseStore::release_lease(const std::string& resource, const OwnerId& owner) {
  Statement u = db_.prepare(
      "DELETE FROM leases WHERE resource = ?1 AND owner_host = ?2 AND owner_pid = ?3 AND owner_start = ?4");
  u.bind(1, resource)
      .bind(2, owner.host)
      .bind(3, owner.pid)
      .bind(4, static_cast<std::int64_t>(owner.start_ticks));
  u.run();
}

void LeaseStore::release_leases(const OwnerId& owner) {
  Statement u =
      db_.prepare("DELETE FROM leases WHERE owner_host = ?1 AND owner_pid = ?2 AND owner_start = ?3");
  u.bind(1, owner.host).bind(2, owner.pid).bind(3, static_cast<std::int64_t>(owner.start_ticks)).run();
}

std::vector<std::string> LeaseStore::renew_leases(const OwnerId& owner, double now) {
  Transaction tx(db_);
  Statement u = db_.prepare(
      "UPDATE leases SET heartbeat_at = ?4 WHERE owner_host = ?1 AND owner_pid = ?2 AND owner_start = ?3");
  u.bind(1, owner.host).bind(2, owner.pid).bind(3, static_cast<std::int64_t>(owner.start_ticks)).bind(4, now);
  u.run();
  Statement q = db_.prepare(
      "SELECT resource FROM leases WHERE owner_host = ?1 AND owner_pid = ?2 AND owner_start = ?3 AND cancel "
      "!= 0");
  q.bind(1, owner.host).bind(2, owner.pid).bind(3, static_cast<std::int64_t>(owner.start_ticks));
  std::vector<std::string> cancelled;
  while (q.step()) cancelled.push_back(q.column_text(0));
  tx.commit();
  return cancelled;
}

bool LeaseStore::request_cancel(const std::string& resource) {
  Statement u = db_.prepare("UPDATE leases SET cancel = 1 WHERE resource = ?1");
  u.bind(1, resource).run();
  return sqlite3_changes(db_.handle()) == 1;
}

std::int64_t LeaseStore::begin_owned_search(const SearchRecord& r, const OwnerId& owner, double now) {
  Transaction tx(db_);
  const std::int64_t id = searches_.begin_search(r);
  // A new id has no lease; anything left under it belongs to a search deleted by hand.
  acquire_lease(search_resource(id), owner, now, [](const LeaseRow&) { return true; });
  tx.commit();
  return id;
}

LeaseStore::OpenedSearch LeaseStore::open_search(const SearchRecord& r, const OwnerId& owner, double now,
                                                 const HolderDead& dead) {
  Transaction tx(db_);
  OpenedSearch out;
  // `IS` compares a NULL seed equal to a NULL seed.
  Statement q = db_.prepare(
      "SELECT id FROM searches WHERE testbed = ?1 AND sample = ?2 AND confidence = ?3 AND accuracy = ?4 AND "
      "policy = ?5 AND seed IS ?6 AND options_json = ?7 AND status IN ('running', 'interrupted') AND id NOT "
      "IN "
      "(SELECT search_id FROM surface_points WHERE search_id IS NOT NULL) ORDER BY id DESC LIMIT 1");
  q.bind(1, r.testbed).bind(2, r.sample.key()).bind(3, r.confidence).bind(4, r.accuracy).bind(5, r.policy);
  if (r.seed)
    q.bind(6, *r.seed);
  else
    q.bind_null(6);
  q.bind(7, r.options_json);
  if (q.step()) {
    out.id = q.column_int(0);
    out.holder = acquire_lease(search_resource(out.id), owner, now, dead);
    if (out.holder) return out;  // a live controller runs it: the transaction changes nothing
    set_search_status(out.id, SearchState::kRunning);
    out.resumed = true;
  } else {
    out.id = begin_owned_search(r, owner, now);
  }
  tx.commit();
  return out;
}

void LeaseStore::set_search_status(std::int64_t id, SearchState state) {
  Statement u = db_.prepare("UPDATE searches SET status = ?2 WHERE id = ?1");
  u.bind(1, id).bind(2, std::string(to_string(state))).run();
}

std::vector<std::int64_t> LeaseStore::mark_interrupted(const HolderDead& dead) {
  Transaction tx(db_);
  Statement q = db_.prepare(
      "SELECT s.id, l.resource IS NOT NULL FROM searches s LEFT JOIN leases l ON l.resource = 'search:' || "
      "s.id "
      "WHERE s.status = 'running'");
  std::vector<std::int64_t> ids;
  while (q.step()) {
    const std::int64_t id = q.column_int(0);
    if (q.column_int(1) != 0) {
      std::optional<LeaseRow> l = lease(search_resource(id));
      if (l && !dead(*l)) continue;
    }
    ids.push_back(id);
  }
  for (std::int64_t id : ids) {
    set_search_status(id, SearchState::kInterrupted);
    Statement d = db_.prepare("DELETE FROM leases WHERE resource = ?1");
    d.bind(1, search_resource(id)).run();
  }
  tx.commit();
  return ids;
}

}  // namespace wb::store
