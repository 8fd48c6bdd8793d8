#include "store/probes.hpp"

#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "store/sqlite.hpp"
#include "store/store_internal.hpp"

namespace wb::store {

namespace {

constexpr std::array<std::string_view, 2> kMismatchStates{"open", "closed"};
constexpr std::array<std::string_view, 2> kMismatchMetrics{"peak_rate", "mean_ms"};
constexpr std::array<std::string_view, 4> kProbeStates{"planned", "running", "done", "cancelled"};

// The enum value whose text a column holds; Error for a text no version of workbench writes.
template <typename E, std::size_t N>
E parse_column(const std::array<std::string_view, N>& texts, const std::string& text, const char* what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (texts[i] == text) return static_cast<E>(i);
  }
  throw Error(fmt::format("store: unknown {} '{}'", what, text));
}

constexpr const char* kProbeColumns =
    "id, testbed, mismatch_id, sample_json, attribute, priority, not_before, status, search_id, lock_owner, "
    "locked_at";

ProbeStore::ProbeRow read_probe(const Statement& s) {
  ProbeStore::ProbeRow p;
  p.id = s.column_int(0);
  p.testbed = s.column_text(1);
  p.mismatch_id = s.column_int(2);
  p.sample = sample_from_json(s.column_text(3));
  p.attribute = s.column_text(4);
  p.priority = s.column_double(5);
  p.not_before = s.column_int(6);
  p.status = parse_column<ProbeState>(kProbeStates, s.column_text(7), "probe status");
  p.search_id = s.optional_int(8);
  p.lock_owner = s.optional_text(9);
  p.locked_at = s.optional_int(10);
  return p;
}

constexpr const char* kMismatchColumns =
    "id, testbed, search_id, sample_json, expected, measured, ratio, attributes_json, center, status, "
    "created_at, closed_at, metric, center_json";

ProbeStore::MismatchRow read_mismatch(const Statement& s) {
  ProbeStore::MismatchRow m;
  m.id = s.column_int(0);
  m.testbed = s.column_text(1);
  m.search_id = s.column_int(2);
  m.sample = sample_from_json(s.column_text(3));
  m.expected = s.column_double(4);
  m.measured = s.column_double(5);
  m.ratio = s.column_double(6);
  m.attributes_json = s.column_text(7);
  m.center = s.optional_text(8);
  m.status = parse_column<MismatchState>(kMismatchStates, s.column_text(9), "mismatch status");
  m.created_at = s.column_text(10);
  m.closed_at = s.optional_text(11).value_or("");
  m.metric = parse_column<MismatchMetric>(kMismatchMetrics, s.column_text(12), "mismatch metric");
  m.center_json = s.optional_text(13).value_or("");
  return m;
}

}  // namespace

std::string_view to_string(MismatchState state) {
  return kMismatchStates.at(static_cast<std::size_t>(state));
}
std::string_view to_string(MismatchMetric metric) {
  return kMismatchMetrics.at(static_cast<std::size_t>(metric));
}
std::string_view to_string(ProbeState state) { return kProbeStates.at(static_cast<std::size_t>(state)); }

std::pair<std::int64_t, std::vector<std::int64_t>> ProbeStore::add_mismatch(
    const MismatchRow& m, const std::vector<ProbeRow>& probes) {
  Transaction tx(db_);
  Statement s = db_.prepare(
      "INSERT INTO mismatches (testbed, search_id, sample, sample_json, expected, measured, ratio, "
      "attributes_json, center, metric, center_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  s.bind(1, m.testbed).bind(2, m.search_id).bind(3, m.sample.key());
  s.bind(4, nlohmann::json(m.sample.values()).dump()).bind(5, m.expected).bind(6, m.measured);
  s.bind(7, m.ratio).bind(8, m.attributes_json);
  if (m.center)
    s.bind(9, *m.center);
  else
    s.bind_null(9);
  s.bind(10, std::string(to_string(m.metric)));
  if (m.center_json.empty())
    s.bind_null(11);
  else
    s.bind(11, m.center_json);
  s.run();
  const std::int64_t mismatch_id = db_.last_insert_id();
  std::vector<std::int64_t> ids;
  for (ProbeRow p : probes) {
    p.testbed = m.testbed;
    p.mismatch_id = mismatch_id;
    if (insert_probe(p)) ids.push_back(db_.last_insert_id());
  }
  tx.commit();
  return {mismatch_id, ids};
}

bool ProbeStore::insert_probe(const ProbeRow& p) {
  // Not where a probe that is not cancelled, a search, or an unfinished surface's point already is:
  // that sample is measured, or will be.
  Statement ins = db_.prepare(
      "INSERT INTO probes (testbed, mismatch_id, sample, sample_json, attribute, priority, not_before) "
      "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE NOT EXISTS (SELECT 1 FROM probes WHERE testbed = ?1 AND "
      "sample = ?3 AND status != 'cancelled') AND NOT EXISTS (SELECT 1 FROM searches WHERE testbed = ?1 "
      "AND sample = ?3) AND NOT EXISTS (SELECT 1 FROM surface_points sp JOIN surfaces s ON s.id = "
      "sp.surface_id WHERE s.testbed = ?1 AND sp.sample = ?3 AND s.status != 'done')");
  ins.bind(1, p.testbed).bind(2, p.mismatch_id).bind(3, p.sample.key());
  ins.bind(4, nlohmann::json(p.sample.values()).dump()).bind(5, p.attribute).bind(6, p.priority);
  ins.bind(7, p.not_before).run();
  return sqlite3_changes(db_.handle()) > 0;
}

std::vector<std::int64_t> ProbeStore::add_probes(const std::vector<ProbeRow>& probes) {
  Transaction tx(db_);
  std::vector<std::int64_t> ids;
  for (const ProbeRow& p : probes)
    if (insert_probe(p)) ids.push_back(db_.last_insert_id());
  tx.commit();
  return ids;
}

std::optional<ProbeStore::MismatchRow> ProbeStore::mismatch(std::int64_t id) {
  Statement s = db_.prepare(fmt::format("SELECT {} FROM mismatches WHERE id = ?1", kMismatchColumns));
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_mismatch(s);
}

std::vector<ProbeStore::MismatchRow> ProbeStore::mismatches(const std::string& testbed, bool open_only,
                                                            std::optional<MismatchMetric> metric) {
  Statement s = db_.prepare(fmt::format("SELECT {} FROM mismatches WHERE testbed = ?1 {} {} ORDER BY id",
                                        kMismatchColumns, open_only ? "AND status = 'open'" : "",
                                        metric ? "AND metric = ?2" : ""));
  s.bind(1, testbed);
  if (metric) s.bind(2, std::string(to_string(*metric)));
  std::vector<MismatchRow> out;
  while (s.step()) out.push_back(read_mismatch(s));
  return out;
}

bool ProbeStore::has_mismatch_at(const std::string& testbed, const Sample& sample) {
  Statement s = db_.prepare("SELECT 1 FROM mismatches WHERE testbed = ?1 AND sample = ?2 LIMIT 1");
  s.bind(1, testbed).bind(2, sample.key());
  return s.step();
}

double ProbeStore::probe_cost_s(const std::string& testbed) {
  Statement s = db_.prepare(
      "SELECT COALESCE(SUM(s.cost_s), 0) FROM probes p JOIN searches s ON s.id = p.search_id "
      "WHERE p.testbed = ?1");
  s.bind(1, testbed);
  s.step();
  return s.column_double(0);
}

void ProbeStore::reopen_mismatch(std::int64_t id) {
  Statement s = db_.prepare(
      "UPDATE mismatches SET status = 'open', closed_at = NULL WHERE id = ?1 AND status = 'closed'");
  s.bind(1, id).run();
}

void ProbeStore::close_mismatch(std::int64_t id) {
  Statement s = db_.prepare(
      "UPDATE mismatches SET status = 'closed', closed_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') "
      "WHERE id = ?1 AND status = 'open'");
  s.bind(1, id).run();
}

std::optional<ProbeStore::ProbeRow> ProbeStore::probe(std::int64_t id) {
  Statement s = db_.prepare(fmt::format("SELECT {} FROM probes WHERE id = ?1", kProbeColumns));
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_probe(s);
}

std::vector<ProbeStore::ProbeRow> ProbeStore::probes(const std::string& testbed, bool all) {
  Statement s =
      db_.prepare(fmt::format("SELECT {} FROM probes WHERE testbed = ?1 {} ORDER BY priority DESC, id",
                              kProbeColumns, all ? "" : "AND status IN ('planned', 'running')"));
  s.bind(1, testbed);
  std::vector<ProbeRow> out;
  while (s.step()) out.push_back(read_probe(s));
  return out;
}

std::optional<ProbeStore::ProbeRow> ProbeStore::claim_due_probe(const std::string& testbed,
                                                                const std::string& owner, std::int64_t now,
                                                                std::int64_t stale_before) {
  // BEGIN IMMEDIATE takes the write lock before the read: a second process waits here (busy
  // timeout) and then sees the first one's claim, so the SELECT and UPDATE act as one step.
  Transaction tx(db_);
  Statement q = db_.prepare(
      "SELECT id, status FROM probes WHERE testbed = ?1 AND ((status = 'planned' AND not_before <= ?2) OR "
      "(status = 'running' AND locked_at < ?3)) ORDER BY priority DESC, id LIMIT 1");
  q.bind(1, testbed).bind(2, now).bind(3, stale_before);
  if (!q.step()) return std::nullopt;
  const std::int64_t id = q.column_int(0);
  const std::string status = q.column_text(1);
  Statement u = db_.prepare(
      "UPDATE probes SET status = 'running', lock_owner = ?2, locked_at = ?3 WHERE id = ?1 AND status = ?4");
  u.bind(1, id).bind(2, owner).bind(3, now).bind(4, status).run();
  if (sqlite3_changes(db_.handle()) != 1) return std::nullopt;
  tx.commit();
  return probe(id);
}

std::optional<ProbeStore::ProbeRow> ProbeStore::claim_probe(std::int64_t id, const std::string& owner,
                                                            std::int64_t now) {
  Statement u = db_.prepare(
      "UPDATE probes SET status = 'running', lock_owner = ?2, locked_at = ?3 WHERE id = ?1 AND "
      "status = 'planned'");
  u.bind(1, id).bind(2, owner).bind(3, now).run();
  if (sqlite3_changes(db_.handle()) != 1) return std::nullopt;
  return probe(id);
}

void ProbeStore::finish_probe(std::int64_t id, std::optional<std::int64_t> search_id) {
  Statement u = db_.prepare("UPDATE probes SET status = 'done', search_id = ?2 WHERE id = ?1");
  u.bind(1, id);
  if (search_id)
    u.bind(2, *search_id);
  else
    u.bind_null(2);
  u.run();
}

void ProbeStore::release_probe(std::int64_t id) {
  Statement u = db_.prepare(
      "UPDATE probes SET status = 'planned', lock_owner = NULL, locked_at = NULL WHERE id = ?1 AND "
      "status = 'running'");
  u.bind(1, id).run();
}

bool ProbeStore::cancel_probe(std::int64_t id) {
  if (!probe(id)) throw InputError(fmt::format("no probe {} in store {}", id, path_));
  Statement u = db_.prepare(
      "UPDATE probes SET status = 'cancelled' WHERE id = ?1 AND status IN ('planned', 'running')");
  u.bind(1, id).run();
  return sqlite3_changes(db_.handle()) == 1;
}

}  // namespace wb::store
