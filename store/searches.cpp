#include "store/searches.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "store/sqlite.hpp"
#include "store/store_internal.hpp"

namespace wb::store {

namespace {

// The texts of the status column, in SearchState order; the ended ones are SearchStatus's.
constexpr std::array<std::string_view, 9> kSearchStates{
    "running", "interrupted", "found", "not-found", "budget", "failed", "fixed", "cliff", "bistable"};

}  // namespace

std::string_view to_string(SearchState state) { return kSearchStates.at(static_cast<std::size_t>(state)); }

SearchState state_of(SearchStatus status) {
  switch (status) {
    case SearchStatus::kFound: return SearchState::kFound;
    case SearchStatus::kNotFound: return SearchState::kNotFound;
    case SearchStatus::kBudget: return SearchState::kBudget;
    case SearchStatus::kFailed: return SearchState::kFailed;
    case SearchStatus::kCliff: return SearchState::kCliff;
    case SearchStatus::kBistable: return SearchState::kBistable;
  }
  return SearchState::kFailed;
}

bool has_peak(SearchState state) {
  return state == SearchState::kFound || state == SearchState::kCliff || state == SearchState::kBistable;
}

const char* const kPeakStatesSql = "('found', 'cliff', 'bistable')";

SearchState parse_search_state(std::string_view text) {
  for (std::size_t i = 0; i < kSearchStates.size(); ++i) {
    if (kSearchStates[i] == text) return static_cast<SearchState>(i);
  }
  throw Error(fmt::format("store: unknown search status '{}'", text));
}

std::int64_t SearchStore::begin_search(const SearchRecord& r) {
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

void SearchStore::add_trial(std::int64_t search_id, int load_index, const TrialResult& t) {
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
  if (!t.io_trace.empty()) {
    const auto lines = std::count(t.io_trace.begin(), t.io_trace.end(), '\n');
    Statement tr = db_.prepare("INSERT INTO trial_traces (trial_id, ops, csv) VALUES (?1, ?2, ?3)");
    tr.bind(1, db_.last_insert_id()).bind(2, static_cast<std::int64_t>(std::max<long>(0, lines - 1)));
    tr.bind(3, t.io_trace).run();
  }
  Statement u = db_.prepare("UPDATE searches SET trials = trials + 1, cost_s = cost_s + ?2 WHERE id = ?1");
  u.bind(1, search_id).bind(2, t.cost_s).run();
  tx.commit();
}

void SearchStore::add_load(std::int64_t search_id, int load_index, const TestLoad& l) {
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

void SearchStore::finish_search(std::int64_t id, const SearchResult& r) {
  Statement s = db_.prepare(
      "UPDATE searches SET status = ?2, peak_rate = ?3, mean_ms = ?4, ci_low_ms = ?5, ci_high_ms = ?6, "
      "message = ?7, peak_low = ?8, peak_high = ?9, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') "
      "WHERE id = ?1");
  s.bind(1, id).bind(2, std::string(to_string(state_of(r.status))));
  if (has_peak(r.status))
    s.bind(3, r.peak_rate).bind(4, r.response.mean).bind(5, r.response.low).bind(6, r.response.high);
  else
    s.bind_null(3).bind_null(4).bind_null(5).bind_null(6);
  s.bind(7, r.message);
  // The interval exists only for a search with a λ* that set it (peak_high > 0 or infinite).
  if (has_peak(r.status) && r.peak_high > 0) {
    s.bind(8, r.peak_low);
    s.bind(9, std::isfinite(r.peak_high) ? std::optional<double>(r.peak_high) : std::nullopt);
  } else {
    s.bind_null(8).bind_null(9);
  }
  s.run();
}

void SearchStore::finish_fixed_run(std::int64_t id, const MeanInterval& response) {
  Statement s = db_.prepare(
      "UPDATE searches SET status = 'fixed', mean_ms = ?2, ci_low_ms = ?3, ci_high_ms = ?4, "
      "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?1");
  s.bind(1, id).bind(2, response.mean).bind(3, response.low).bind(4, response.high).run();
}

std::optional<SearchRecord> SearchStore::search(std::int64_t id) {
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
  r.seed = s.optional_int(5);
  r.options_json = s.column_text(6);
  r.status = parse_search_state(s.column_text(7));
  r.peak_rate = s.optional_double(8);
  r.trials = static_cast<int>(s.column_int(9));
  r.cost_s = s.column_double(10);
  return r;
}

namespace {
constexpr const char* kTraceColumns =
    "SELECT t.id, t.search_id, s.sample, t.rate, x.ops, t.created_at{} FROM trial_traces x "
    "JOIN trials t ON t.id = x.trial_id JOIN searches s ON s.id = t.search_id WHERE s.testbed = ?1 {}";

SearchStore::StoredTrace trace_row(Statement& s, bool with_csv) {
  SearchStore::StoredTrace t;
  t.trial_id = s.column_int(0);
  t.search_id = s.column_int(1);
  t.sample = s.column_text(2);
  t.rate = s.column_double(3);
  t.ops = s.column_int(4);
  t.created_at = s.column_text(5);
  if (with_csv) t.csv = s.column_text(6);
  return t;
}
}  // namespace

std::vector<SearchStore::StoredTrace> SearchStore::traces(const std::string& testbed) {
  Statement s = db_.prepare(fmt::format(kTraceColumns, "", "ORDER BY t.id DESC"));
  s.bind(1, testbed);
  std::vector<StoredTrace> out;
  while (s.step()) out.push_back(trace_row(s, false));
  return out;
}

std::optional<SearchStore::StoredTrace> SearchStore::trace(const std::string& testbed,
                                                           std::int64_t trial_id) {
  Statement s = db_.prepare(fmt::format(kTraceColumns, ", x.csv", "AND t.id = ?2"));
  s.bind(1, testbed).bind(2, trial_id);
  if (!s.step()) return std::nullopt;
  return trace_row(s, true);
}

std::vector<StoredTrial> SearchStore::trials(std::int64_t search_id) {
  Statement s = db_.prepare(
      "SELECT load_index, rate, runlength_s, achieved_rate, sent, completed, errors, mean_ms, p50_ms, "
      "p90_ms, "
      "p95_ms, p99_ms, max_ms, cost_s, stages_json, created_at, "
      "(julianday(created_at) - 2440587.5) * 86400.0 FROM trials WHERE search_id = ?1 ORDER BY id");
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
    st.created_at = s.column_text(15);
    st.created_unix = s.column_double(16);
    out.push_back(st);
  }
  return out;
}

std::vector<StoredLoad> SearchStore::loads(std::int64_t search_id) {
  Statement s = db_.prepare(
      "SELECT load_index, rate, runlength_s, trials, mean_ms, ci_low_ms, ci_high_ms, saturated, verdict "
      "FROM loads WHERE search_id = ?1 ORDER BY load_index");
  s.bind(1, search_id);
  std::vector<StoredLoad> out;
  while (s.step()) {
    StoredLoad l;
    l.load_index = static_cast<int>(s.column_int(0));
    l.rate = s.column_double(1);
    l.runlength_s = s.column_double(2);
    l.trials = static_cast<int>(s.column_int(3));
    if (!s.column_is_null(4) && !s.column_is_null(5) && !s.column_is_null(6))
      l.ci = MeanInterval{s.column_double(4), s.column_double(5), s.column_double(6)};
    l.saturated = s.column_int(7) != 0;
    l.verdict = s.column_text(8);
    out.push_back(l);
  }
  return out;
}

std::int64_t SearchStore::count_trials() {
  Statement s = db_.prepare("SELECT count(*) FROM trials");
  s.step();
  return s.column_int(0);
}

std::vector<std::int64_t> SearchStore::found_searches(const std::string& testbed, int limit) {
  Statement q = db_.prepare(
      fmt::format("SELECT id FROM searches WHERE testbed = ?1 AND status IN {} AND peak_rate IS NOT NULL "
                  "ORDER BY id DESC LIMIT ?2",
                  kPeakStatesSql));
  q.bind(1, testbed).bind(2, static_cast<std::int64_t>(limit));
  std::vector<std::int64_t> ids;
  while (q.step()) ids.push_back(q.column_int(0));
  return ids;
}

std::vector<std::int64_t> SearchStore::search_ids(const std::string& testbed) {
  Statement s = db_.prepare("SELECT id FROM searches WHERE testbed = ?1 ORDER BY id");
  s.bind(1, testbed);
  std::vector<std::int64_t> out;
  while (s.step()) out.push_back(s.column_int(0));
  return out;
}

std::optional<SearchStore::PeakInterval> SearchStore::peak_interval(std::int64_t search_id) {
  Statement s = db_.prepare("SELECT peak_low, peak_high FROM searches WHERE id = ?1");
  s.bind(1, search_id);
  if (!s.step() || s.column_is_null(0)) return std::nullopt;
  PeakInterval p;
  p.low = s.column_double(0);
  p.high = s.optional_double(1);
  return p;
}

}  // namespace wb::store
