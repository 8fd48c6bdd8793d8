#pragma once
// Searches and their trials and loads: what each search was asked, every trial it ran, how it
// ended and the λ* interval it found.
// One part of store::Store (store/store.hpp), over the database handle the store owns.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sample.hpp"
#include "core/search_result.hpp"
#include "core/stats.hpp"
#include "core/trial.hpp"

namespace wb::store {

class Database;

// A search's status column: running or interrupted (resumable), a SearchStatus once it ended, or
// fixed for a fixed-rate run (`workbench trial`).
enum class SearchState {
  kRunning,
  kInterrupted,
  kFound,
  kNotFound,
  kBudget,
  kFailed,
  kFixed,
  kCliff,
  kBistable
};
std::string_view to_string(SearchState state);
// Whether a search in this state ended with a λ* (found, a cliff's knee, or below a bistable band).
bool has_peak(SearchState state);
// The status column's texts of the states with a λ*, as an SQL list: "('found', 'cliff', ...)".
extern const char* const kPeakStatesSql;
// The state a status column holds; Error for a text no version of workbench writes.
SearchState parse_search_state(std::string_view text);
// The state a search that ended with `status` is stored in.
SearchState state_of(SearchStatus status);

// What a search was asked to do, as recorded when it starts.
struct SearchRecord {
  std::int64_t id = 0;
  std::string testbed;
  Sample sample;
  double confidence = 0, accuracy = 0;
  std::string policy;
  std::optional<std::int64_t> seed;
  std::string options_json;
  SearchState status = SearchState::kRunning;
  std::optional<double> peak_rate;
  int trials = 0;
  double cost_s = 0;
};

struct StoredTrial {
  std::int64_t search_id = 0;
  int load_index = 0;
  TrialResult trial;
  std::string created_at;   // when it was stored, ISO 8601 UTC (set by the store)
  double created_unix = 0;  // the same as seconds since 1970
};

// A load of a search as its picker judged it: the CI over its trials of the region's metric (the
// mean response time or a percentile, core/peak_region.hpp) at the search's confidence (nullopt
// with fewer than two trials), and the verdict.
struct StoredLoad {
  int load_index = 0;
  double rate = 0, runlength_s = 0;
  int trials = 0;
  std::optional<MeanInterval> ci;
  bool saturated = false;
  std::string verdict;
};

class SearchStore {
 public:
  explicit SearchStore(Database& db) : db_(db) {}

  std::int64_t begin_search(const SearchRecord& record);
  void add_trial(std::int64_t search_id, int load_index, const TrialResult& trial);
  void add_load(std::int64_t search_id, int load_index, const TestLoad& load);
  void finish_search(std::int64_t search_id, const SearchResult& result);

  std::optional<SearchRecord> search(std::int64_t id);
  // The latest `limit` searches of `testbed` that found a peak, newest first.
  std::vector<std::int64_t> found_searches(const std::string& testbed, int limit);
  std::vector<StoredTrial> trials(std::int64_t search_id);
  // The judged loads of a search, in the order they were tried.
  std::vector<StoredLoad> loads(std::int64_t search_id);
  // Ends a fixed-rate run (`workbench trial`, a search of policy "fixed"): status "fixed" with the
  // mean response time and its CI over the run's trials.
  void finish_fixed_run(std::int64_t search_id, const MeanInterval& response);
  std::int64_t count_trials();

  // Ids of the searches of `testbed`, oldest first.
  std::vector<std::int64_t> search_ids(const std::string& testbed);

  // λ* interval of a finished search (SearchResult::peak_low/high); nullopt when not recorded.
  struct PeakInterval {
    double low = 0;
    std::optional<double> high;  // nullopt: unbounded above
  };
  std::optional<PeakInterval> peak_interval(std::int64_t search_id);

  // A trial's stored I/O trace ([workload] trace = true).
  struct StoredTrace {
    std::int64_t trial_id = 0, search_id = 0;
    std::string sample;  // canonical key
    double rate = 0;
    std::int64_t ops = 0;
    std::string created_at;
    std::string csv;  // empty in listings
  };
  // The traces of `testbed`'s trials, newest first, without their CSV.
  std::vector<StoredTrace> traces(const std::string& testbed);
  // The trace of trial `trial_id` of `testbed`, with its CSV; nullopt if it has none.
  std::optional<StoredTrace> trace(const std::string& testbed, std::int64_t trial_id);

 private:
  Database& db_;
};

}  // namespace wb::store
