#include "store/leases.hpp"

#include <ctime>

#include "store/sqlite.hpp"

namespace wb::store {

namespace {

// SQLite integers are signed 64-bit: an unsigned start time is kept as its bit pattern.
std::int64_t to_column(std::uint64_t v) { return static_cast<std::int64_t>(v); }
std::uint64_t from_column(std::int64_t v) { return static_cast<std::uint64_t>(v); }

}  // namespace

std::int64_t LeaseStore::add_process(const ProcessRow& r) {
  Statement s = db_.prepare(
      "INSERT INTO processes (testbed, host, pgid, start_ticks, command, owner_host, owner_pid, "
      "owner_start_ticks, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  s.bind(1, r.testbed).bind(2, r.host).bind(3, r.pgid).bind(4, to_column(r.start_ticks)).bind(5, r.command);
  s.bind(6, r.owner.host).bind(7, r.owner.pid).bind(8, to_column(r.owner.start_ticks));
  s.bind(9, r.started_at != 0 ? r.started_at : static_cast<std::int64_t>(std::time(nullptr)));
  s.run();
  return db_.last_insert_id();
}

void LeaseStore::remove_process(std::int64_t id) {
  Statement s = db_.prepare("DELETE FROM processes WHERE id = ?1");
  s.bind(1, id).run();
}

std::vector<LeaseStore::ProcessRow> LeaseStore::processes(const std::string& testbed) {
  Statement s = db_.prepare(
      "SELECT id, testbed, host, pgid, start_ticks, command, owner_host, owner_pid, owner_start_ticks, "
      "started_at FROM processes WHERE testbed = ?1 ORDER BY id");
  s.bind(1, testbed);
  std::vector<ProcessRow> rows;
  while (s.step()) {
    ProcessRow r;
    r.id = s.column_int(0);
    r.testbed = s.column_text(1);
    r.host = s.column_text(2);
    r.pgid = s.column_int(3);
    r.start_ticks = from_column(s.column_int(4));
    r.command = s.column_text(5);
    r.owner.host = s.column_text(6);
    r.owner.pid = s.column_int(7);
    r.owner.start_ticks = from_column(s.column_int(8));
    r.started_at = s.column_int(9);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace wb::store
