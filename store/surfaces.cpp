#include "store/surfaces.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/search_result.hpp"
#include "store/sqlite.hpp"
#include "store/store_internal.hpp"

namespace wb::store {

namespace {

// The texts of the status column, in SurfaceState order.
constexpr std::array<std::string_view, 3> kSurfaceStates{"running", "done", "budget"};

}  // namespace

std::string_view to_string(SurfaceState state) { return kSurfaceStates.at(static_cast<std::size_t>(state)); }

SurfaceState parse_surface_state(std::string_view text) {
  for (std::size_t i = 0; i < kSurfaceStates.size(); ++i) {
    if (kSurfaceStates[i] == text) return static_cast<SurfaceState>(i);
  }
  throw Error(fmt::format("store: unknown surface status '{}'", text));
}

std::optional<SurfaceRecord> SurfaceStore::find_surface(const std::string& testbed,
                                                        const std::string& params_key) {
  Statement s =
      db_.prepare("SELECT id FROM surfaces WHERE testbed = ?1 AND params_key = ?2 ORDER BY id DESC LIMIT 1");
  s.bind(1, testbed).bind(2, params_key);
  if (!s.step()) return std::nullopt;
  return surface(s.column_int(0));
}

std::int64_t SurfaceStore::create_surface(const std::string& testbed, const std::string& params_key,
                                          const std::string& params_json, const std::vector<Sample>& tour) {
  Transaction tx(db_);
  Statement s = db_.prepare("INSERT INTO surfaces (testbed, params_key, params_json) VALUES (?1, ?2, ?3)");
  s.bind(1, testbed).bind(2, params_key).bind(3, params_json).run();
  std::int64_t id = db_.last_insert_id();
  for (std::size_t i = 0; i < tour.size(); ++i) {
    nlohmann::json sample = tour[i].values();
    Statement p = db_.prepare(
        "INSERT INTO surface_points (surface_id, position, sample, sample_json) VALUES (?1, ?2, ?3, ?4)");
    p.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, tour[i].key()).bind(4, sample.dump()).run();
  }
  tx.commit();
  return id;
}

int SurfaceStore::add_surface_point(std::int64_t surface_id, const Sample& sample) {
  Transaction tx(db_);
  // Two controllers augmenting one surface may pick the same sample: it is planned once.
  Statement have = db_.prepare("SELECT position FROM surface_points WHERE surface_id = ?1 AND sample = ?2");
  have.bind(1, surface_id).bind(2, sample.key());
  if (have.step()) return static_cast<int>(have.column_int(0));
  Statement n =
      db_.prepare("SELECT COALESCE(MAX(position) + 1, 0) FROM surface_points WHERE surface_id = ?1");
  n.bind(1, surface_id);
  n.step();
  const std::int64_t position = n.column_int(0);
  nlohmann::json values = sample.values();
  Statement p = db_.prepare(
      "INSERT INTO surface_points (surface_id, position, sample, sample_json) VALUES (?1, ?2, ?3, ?4)");
  p.bind(1, surface_id).bind(2, position).bind(3, sample.key()).bind(4, values.dump()).run();
  tx.commit();
  return static_cast<int>(position);
}

std::vector<std::int64_t> SurfaceStore::done_surfaces(const std::string& testbed) {
  Statement q =
      db_.prepare("SELECT id FROM surfaces WHERE testbed = ?1 AND status = 'done' ORDER BY id DESC");
  q.bind(1, testbed);
  std::vector<std::int64_t> ids;
  while (q.step()) ids.push_back(q.column_int(0));
  return ids;
}

std::vector<std::int64_t> SurfaceStore::surface_ids(const std::string& testbed) {
  Statement q = db_.prepare("SELECT id FROM surfaces WHERE testbed = ?1 ORDER BY id");
  q.bind(1, testbed);
  std::vector<std::int64_t> ids;
  while (q.step()) ids.push_back(q.column_int(0));
  return ids;
}

std::optional<SurfaceRecord> SurfaceStore::surface(std::int64_t id) {
  Statement s = db_.prepare("SELECT testbed, params_key, params_json, status FROM surfaces WHERE id = ?1");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  SurfaceRecord r;
  r.id = id;
  r.testbed = s.column_text(0);
  r.params_key = s.column_text(1);
  r.params_json = s.column_text(2);
  r.status = parse_surface_state(s.column_text(3));
  Statement p = db_.prepare(
      "SELECT position, sample_json, search_id, slot, start_rate, seeded, seed_elasticity FROM "
      "surface_points "
      "WHERE "
      "surface_id = ?1 "
      "ORDER BY position");
  p.bind(1, id);
  while (p.step()) {
    SurfacePoint pt;
    pt.position = static_cast<int>(p.column_int(0));
    pt.sample = sample_from_json(p.column_text(1));
    pt.search_id = p.optional_int(2);
    if (!p.column_is_null(3)) pt.slot = static_cast<int>(p.column_int(3));
    pt.start_rate = p.optional_double(4);
    pt.seeded = p.column_int(5) != 0;
    if (!p.column_is_null(6)) pt.seed_elasticity = p.column_double(6);
    r.points.push_back(std::move(pt));
  }
  return r;
}

std::int64_t SurfaceStore::begin_surface_search(std::int64_t surface_id, int position,
                                                const SearchRecord& search, int slot, double start_rate,
                                                bool seeded, double seed_elasticity) {
  Transaction tx(db_);
  std::int64_t search_id = searches_.begin_search(search);
  Statement u = db_.prepare(
      "UPDATE surface_points SET search_id = ?3, slot = ?4, start_rate = ?5, seeded = ?6, seed_elasticity = "
      "NULLIF(?7, 0) WHERE surface_id = ?1 AND position = ?2 AND search_id IS NULL");
  u.bind(1, surface_id).bind(2, std::int64_t{position}).bind(3, search_id).bind(4, std::int64_t{slot});
  u.bind(5, start_rate).bind(6, std::int64_t{seeded ? 1 : 0}).bind(7, seed_elasticity).run();
  if (sqlite3_changes(db_.handle()) != 1) {
    throw Error(fmt::format("surface {} point {} already has a search", surface_id, position));
  }
  tx.commit();
  return search_id;
}

std::optional<std::int64_t> SurfaceStore::reuse_found_search(std::int64_t surface_id, int position,
                                                             const SearchRecord& like) {
  Transaction tx(db_);
  // `IS` compares a NULL seed equal to a NULL seed.
  Statement q = db_.prepare(fmt::format(
      "SELECT id FROM searches WHERE testbed = ?1 AND sample = ?2 AND confidence = ?3 AND accuracy = ?4 AND "
      "policy = ?5 AND seed IS ?6 AND options_json = ?7 AND status IN {} ORDER BY id DESC LIMIT 1",
      kPeakStatesSql));
  q.bind(1, like.testbed).bind(2, like.sample.key()).bind(3, like.confidence).bind(4, like.accuracy);
  q.bind(5, like.policy).bind(7, like.options_json);
  if (like.seed)
    q.bind(6, *like.seed);
  else
    q.bind_null(6);
  if (!q.step()) return std::nullopt;
  const std::int64_t id = q.column_int(0);
  Statement u = db_.prepare(
      "UPDATE surface_points SET search_id = ?3 WHERE surface_id = ?1 AND position = ?2 AND search_id IS "
      "NULL");
  u.bind(1, surface_id).bind(2, std::int64_t{position}).bind(3, id).run();
  if (sqlite3_changes(db_.handle()) != 1) return std::nullopt;
  tx.commit();
  return id;
}

void SurfaceStore::finish_surface(std::int64_t id, SurfaceState status) {
  Statement s = db_.prepare(
      "UPDATE surfaces SET status = ?2, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?1");
  s.bind(1, id).bind(2, std::string(to_string(status))).run();
}

}  // namespace wb::store
