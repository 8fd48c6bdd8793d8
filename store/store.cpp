#include "store/store.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/search_result.hpp"
#include "store/schema.hpp"
#include "store/store_internal.hpp"

namespace wb::store {

Sample sample_from_json(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  Sample sample;
  for (auto it = j.begin(); it != j.end(); ++it) sample.set(it.key(), it.value().get<std::string>());
  return sample;
}

Store::Store(const std::string& path) : path_(path), db_(path) { migrate(db_); }

std::int64_t Store::begin_search(const SearchRecord& r) {
  nlohmann::json sample = r.sample.values();
  Statement s = db_.prepare(
      "INSERT INTO searches (testbed, sample, sample_json, confidence, accuracy, policy, seed, options_json) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  s.bind(1, r.testbed)
      .bind(2, r.sample.key())
      .bind(3, sample.dump())
      .bind(4, r.confidence)
      .bind(5, r.accuracy);
  s.bind(6, r.policy);
  if (r.seed)
    s.bind(7, *r.seed);
  else
    s.bind_null(7);
  s.bind(8, r.options_json);
  s.run();
  return db_.last_insert_id();
}

void Store::add_trial(std::int64_t search_id, int load_index, const TrialResult& t) {
  Statement s = db_.prepare(
      "INSERT INTO trials (search_id, load_index, rate, runlength_s, achieved_rate, sent, completed, errors, "
      "mean_ms, p50_ms, p90_ms, p95_ms, p99_ms, max_ms, cost_s, stages_json) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)");
  s.bind(1, search_id).bind(2, std::int64_t{load_index}).bind(3, t.offered_rate).bind(4, t.runlength_s);
  s.bind(5, t.achieved_rate)
      .bind(6, static_cast<std::int64_t>(t.sent))
      .bind(7, static_cast<std::int64_t>(t.completed));
  s.bind(8, static_cast<std::int64_t>(t.errors)).bind(9, t.mean_ms).bind(10, t.p50_ms).bind(11, t.p90_ms);
  s.bind(12, t.p95_ms).bind(13, t.p99_ms).bind(14, t.max_ms).bind(15, t.cost_s);
  if (t.stage_ms.empty())
    s.bind_null(16);
  else
    s.bind(16, nlohmann::json(t.stage_ms).dump());
  // One transaction: a crash between the insert and the update would leave the search's trial
  // count and cost behind its trials.
  Transaction tx(db_);
  s.run();
  Statement u = db_.prepare("UPDATE searches SET trials = trials + 1, cost_s = cost_s + ?2 WHERE id = ?1");
  u.bind(1, search_id).bind(2, t.cost_s).run();
  tx.commit();
}

void Store::add_load(std::int64_t search_id, int load_index, const TestLoad& l) {
  Statement s = db_.prepare(
      "INSERT OR REPLACE INTO loads (search_id, load_index, rate, runlength_s, trials, mean_ms, ci_low_ms, "
      "ci_high_ms, saturated, verdict) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  s.bind(1, search_id).bind(2, std::int64_t{load_index}).bind(3, l.rate).bind(4, l.runlength_s);
  s.bind(5, static_cast<std::int64_t>(l.trials.size()));
  if (l.trials.size() >= 2)
    s.bind(6, l.ci.mean).bind(7, l.ci.low).bind(8, l.ci.high);
  else
    s.bind_null(6).bind_null(7).bind_null(8);
  s.bind(9, std::int64_t{l.saturated ? 1 : 0}).bind(10, std::string(to_string(l.verdict)));
  s.run();
}

void Store::finish_search(std::int64_t id, const SearchResult& r) {
  Statement s = db_.prepare(
      "UPDATE searches SET status = ?2, peak_rate = ?3, mean_ms = ?4, ci_low_ms = ?5, ci_high_ms = ?6, "
      "message = ?7, peak_low = ?8, peak_high = ?9, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') "
      "WHERE id = ?1");
  s.bind(1, id).bind(2, std::string(to_string(r.status)));
  if (r.status == SearchStatus::kFound)
    s.bind(3, r.peak_rate).bind(4, r.response.mean).bind(5, r.response.low).bind(6, r.response.high);
  else
    s.bind_null(3).bind_null(4).bind_null(5).bind_null(6);
  s.bind(7, r.message);
  // The interval exists only for a found search that set it (peak_high > 0 or infinite).
  if (r.status == SearchStatus::kFound && r.peak_high > 0) {
    s.bind(8, r.peak_low);
    s.bind(9, std::isfinite(r.peak_high) ? std::optional<double>(r.peak_high) : std::nullopt);
  } else {
    s.bind_null(8).bind_null(9);
  }
  s.run();
}

void Store::finish_fixed_run(std::int64_t id, const MeanInterval& response) {
  Statement s = db_.prepare(
      "UPDATE searches SET status = 'fixed', mean_ms = ?2, ci_low_ms = ?3, ci_high_ms = ?4, "
      "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?1");
  s.bind(1, id).bind(2, response.mean).bind(3, response.low).bind(4, response.high).run();
}

std::optional<SearchRecord> Store::search(std::int64_t id) {
  Statement s = db_.prepare(
      "SELECT testbed, sample_json, confidence, accuracy, policy, seed, options_json, status, peak_rate, "
      "trials, "
      "cost_s FROM searches WHERE id = ?1");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  SearchRecord r;
  r.id = id;
  r.testbed = s.column_text(0);
  r.sample = sample_from_json(s.column_text(1));
  r.confidence = s.column_double(2);
  r.accuracy = s.column_double(3);
  r.policy = s.column_text(4);
  if (!s.column_is_null(5)) r.seed = s.column_int(5);
  r.options_json = s.column_text(6);
  r.status = s.column_text(7);
  if (!s.column_is_null(8)) r.peak_rate = s.column_double(8);
  r.trials = static_cast<int>(s.column_int(9));
  r.cost_s = s.column_double(10);
  return r;
}

std::vector<StoredTrial> Store::trials(std::int64_t search_id) {
  Statement s = db_.prepare(
      "SELECT load_index, rate, runlength_s, achieved_rate, sent, completed, errors, mean_ms, p50_ms, "
      "p90_ms, "
      "p95_ms, p99_ms, max_ms, cost_s, stages_json FROM trials WHERE search_id = ?1 ORDER BY id");
  s.bind(1, search_id);
  std::vector<StoredTrial> out;
  while (s.step()) {
    StoredTrial st;
    st.search_id = search_id;
    st.load_index = static_cast<int>(s.column_int(0));
    TrialResult& t = st.trial;
    t.offered_rate = s.column_double(1);
    t.runlength_s = s.column_double(2);
    t.achieved_rate = s.column_double(3);
    t.sent = static_cast<std::uint64_t>(s.column_int(4));
    t.completed = static_cast<std::uint64_t>(s.column_int(5));
    t.errors = static_cast<std::uint64_t>(s.column_int(6));
    t.mean_ms = s.column_double(7);
    t.p50_ms = s.column_double(8);
    t.p90_ms = s.column_double(9);
    t.p95_ms = s.column_double(10);
    t.p99_ms = s.column_double(11);
    t.max_ms = s.column_double(12);
    t.cost_s = s.column_double(13);
    if (!s.column_is_null(14))
      t.stage_ms = nlohmann::json::parse(s.column_text(14)).get<std::map<std::string, double>>();
    out.push_back(st);
  }
  return out;
}

std::int64_t Store::count_trials() {
  Statement s = db_.prepare("SELECT count(*) FROM trials");
  s.step();
  return s.column_int(0);
}

std::optional<Store::TruthRow> Store::find_truth(const std::string& testbed, const std::string& sample,
                                                 const std::string& hash) {
  Statement s = db_.prepare(
      "SELECT peak_rate, region_low, region_high FROM sim_truths WHERE testbed = ?1 AND sample = ?2 AND "
      "model_hash = ?3");
  s.bind(1, testbed).bind(2, sample).bind(3, hash);
  if (!s.step()) return std::nullopt;
  return TruthRow{s.column_double(0), s.column_double(1), s.column_double(2)};
}

void Store::put_truth(const std::string& testbed, const std::string& sample, const std::string& hash,
                      const TruthRow& t) {
  Statement s = db_.prepare(
      "INSERT OR REPLACE INTO sim_truths (testbed, sample, model_hash, peak_rate, region_low, region_high) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  s.bind(1, testbed)
      .bind(2, sample)
      .bind(3, hash)
      .bind(4, t.peak_rate)
      .bind(5, t.region_low)
      .bind(6, t.region_high);
  s.run();
}

std::optional<SurfaceRecord> Store::find_running_surface(const std::string& testbed,
                                                         const std::string& params_key) {
  Statement s = db_.prepare(
      "SELECT id FROM surfaces WHERE testbed = ?1 AND params_key = ?2 AND status != 'done' ORDER BY id DESC "
      "LIMIT 1");
  s.bind(1, testbed).bind(2, params_key);
  if (!s.step()) return std::nullopt;
  return surface(s.column_int(0));
}

std::int64_t Store::create_surface(const std::string& testbed, const std::string& params_key,
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

std::vector<std::int64_t> Store::found_searches(const std::string& testbed, int limit) {
  Statement q = db_.prepare(
      "SELECT id FROM searches WHERE testbed = ?1 AND status = 'found' AND peak_rate IS NOT NULL "
      "ORDER BY id DESC LIMIT ?2");
  q.bind(1, testbed).bind(2, static_cast<std::int64_t>(limit));
  std::vector<std::int64_t> ids;
  while (q.step()) ids.push_back(q.column_int(0));
  return ids;
}

std::vector<std::int64_t> Store::done_surfaces(const std::string& testbed) {
  Statement q =
      db_.prepare("SELECT id FROM surfaces WHERE testbed = ?1 AND status = 'done' ORDER BY id DESC");
  q.bind(1, testbed);
  std::vector<std::int64_t> ids;
  while (q.step()) ids.push_back(q.column_int(0));
  return ids;
}

std::optional<SurfaceRecord> Store::surface(std::int64_t id) {
  Statement s = db_.prepare("SELECT testbed, params_key, params_json, status FROM surfaces WHERE id = ?1");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  SurfaceRecord r;
  r.id = id;
  r.testbed = s.column_text(0);
  r.params_key = s.column_text(1);
  r.params_json = s.column_text(2);
  r.status = s.column_text(3);
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
    if (!p.column_is_null(2)) pt.search_id = p.column_int(2);
    if (!p.column_is_null(3)) pt.slot = static_cast<int>(p.column_int(3));
    if (!p.column_is_null(4)) pt.start_rate = p.column_double(4);
    pt.seeded = p.column_int(5) != 0;
    if (!p.column_is_null(6)) pt.seed_elasticity = p.column_double(6);
    r.points.push_back(std::move(pt));
  }
  return r;
}

std::int64_t Store::begin_surface_search(std::int64_t surface_id, int position, const SearchRecord& search,
                                         int slot, double start_rate, bool seeded, double seed_elasticity) {
  Transaction tx(db_);
  std::int64_t search_id = begin_search(search);
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

void Store::finish_surface(std::int64_t id, const std::string& status) {
  Statement s = db_.prepare(
      "UPDATE surfaces SET status = ?2, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?1");
  s.bind(1, id).bind(2, status).run();
}

// Expectations and calibrations [000 §2.1].

void Store::put_expectation(const ExpectationRow& e) {
  Statement s = db_.prepare(
      "INSERT OR REPLACE INTO expectations (search_id, peak_rate, saturation_rate, bottleneck, "
      "calibrated_json, "
      "detail_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  s.bind(1, e.search_id).bind(2, e.peak_rate).bind(3, e.saturation_rate).bind(4, e.bottleneck);
  s.bind(5, e.calibrated_json).bind(6, e.detail_json).run();
}

std::optional<Store::ExpectationRow> Store::expectation(std::int64_t search_id) {
  Statement s = db_.prepare(
      "SELECT peak_rate, saturation_rate, bottleneck, calibrated_json, detail_json FROM expectations "
      "WHERE search_id = ?1");
  s.bind(1, search_id);
  if (!s.step()) return std::nullopt;
  ExpectationRow e;
  e.search_id = search_id;
  if (!s.column_is_null(0)) e.peak_rate = s.column_double(0);
  if (!s.column_is_null(1)) e.saturation_rate = s.column_double(1);
  e.bottleneck = s.column_text(2);
  e.calibrated_json = s.column_text(3);
  e.detail_json = s.column_text(4);
  return e;
}

std::vector<std::int64_t> Store::search_ids(const std::string& testbed) {
  Statement s = db_.prepare("SELECT id FROM searches WHERE testbed = ?1 ORDER BY id");
  s.bind(1, testbed);
  std::vector<std::int64_t> out;
  while (s.step()) out.push_back(s.column_int(0));
  return out;
}

void Store::add_calibration(const CalibrationRow& c) {
  nlohmann::json sample = c.sample.values();
  Statement s = db_.prepare(
      "INSERT INTO calibrations (testbed, center, sample, sample_json, demand_ms, visits, source) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  s.bind(1, c.testbed).bind(2, c.center).bind(3, c.sample.key()).bind(4, sample.dump()).bind(5, c.demand_ms);
  s.bind(6, c.visits).bind(7, c.source).run();
}

std::vector<Store::CalibrationRow> Store::calibrations(const std::string& testbed) {
  Statement s = db_.prepare(
      "SELECT center, sample_json, demand_ms, visits, source, created_at FROM calibrations WHERE testbed = "
      "?1 "
      "ORDER BY id");
  s.bind(1, testbed);
  std::vector<CalibrationRow> out;
  while (s.step()) {
    CalibrationRow c;
    c.testbed = testbed;
    c.center = s.column_text(0);
    c.sample = sample_from_json(s.column_text(1));
    c.demand_ms = s.column_double(2);
    if (!s.column_is_null(3)) c.visits = s.column_double(3);
    c.source = s.column_text(4);
    c.created_at = s.column_text(5);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace wb::store
