#pragma once
#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/owner.hpp"
#include "core/sample.hpp"
#include "core/search_result.hpp"
#include "core/trial.hpp"
#include "store/sqlite.hpp"

namespace wb::store {

// What a search was asked to do, as recorded when it starts.
struct SearchRecord {
  std::int64_t id = 0;
  std::string testbed;
  Sample sample;
  double confidence = 0, accuracy = 0;
  std::string policy;
  std::optional<std::int64_t> seed;
  std::string options_json;
  std::string status;
  std::optional<double> peak_rate;
  int trials = 0;
  double cost_s = 0;
};

struct StoredTrial {
  std::int64_t search_id = 0;
  int load_index = 0;
  TrialResult trial;
};

// One planned sample of a response surface, in the order it is measured.
struct SurfacePoint {
  int position = 0;
  Sample sample;
  std::optional<std::int64_t> search_id;  // set once its search has started
  std::optional<int> slot;                // the testbed slot that ran it
  std::optional<double> start_rate;       // the search's first load (a seed, or [peak] start_rate)
  bool seeded = false;                    // start_rate came from a nearby sample's peak
  double seed_elasticity = 0;             // the neighbours' elasticity its picker aimed with; 0: none
};

// A response surface [003 Alg. 1] as recorded: its parameters and its planned samples.
struct SurfaceRecord {
  std::int64_t id = 0;
  std::string testbed;
  std::string params_key;  // canonical text of the parameters; equal keys resume each other
  std::string params_json;
  std::string status;                // running | done | budget
  std::vector<SurfacePoint> points;  // by position
};

// The workbench store: one SQLite file (WAL), schema versioned with migrations. Every write is
// its own transaction, so a killed controller leaves every completed trial behind.
// Not thread-safe: one Store per thread (SQLite handles concurrent processes).
class Store {
 public:
  // Opens or creates the store at `path` and migrates it. Throws Error.
  explicit Store(const std::string& path);

  const std::string& path() const { return path_; }

  std::int64_t begin_search(const SearchRecord& record);
  void add_trial(std::int64_t search_id, int load_index, const TrialResult& trial);
  void add_load(std::int64_t search_id, int load_index, const TestLoad& load);
  void finish_search(std::int64_t search_id, const SearchResult& result);

  std::optional<SearchRecord> search(std::int64_t id);
  // The latest `limit` searches of `testbed` that found a peak, newest first.
  std::vector<std::int64_t> found_searches(const std::string& testbed, int limit);
  std::vector<StoredTrial> trials(std::int64_t search_id);
  // Ends a fixed-rate run (`workbench trial`, a search of policy "fixed"): status "fixed" with the
  // mean response time and its CI over the run's trials.
  void finish_fixed_run(std::int64_t search_id, const MeanInterval& response);
  std::int64_t count_trials();

  // Response surfaces (map-surface). find_running_surface finds the latest unfinished one (running or
  // stopped by a budget) with these parameters. Each create/begin call is one transaction, so a crash
  // never leaves a search that no surface point knows about.
  std::optional<SurfaceRecord> find_running_surface(const std::string& testbed,
                                                    const std::string& params_key);
  std::int64_t create_surface(const std::string& testbed, const std::string& params_key,
                              const std::string& params_json, const std::vector<Sample>& tour);
  std::optional<SurfaceRecord> surface(std::int64_t id);
  // The finished surfaces of `testbed`, newest first.
  std::vector<std::int64_t> done_surfaces(const std::string& testbed);
  std::int64_t begin_surface_search(std::int64_t surface_id, int position, const SearchRecord& search,
                                    int slot, double start_rate, bool seeded, double seed_elasticity = 0);
  void finish_surface(std::int64_t id, const std::string& status);

  struct TruthRow {
    double peak_rate = 0, region_low = 0, region_high = 0;
  };
  std::optional<TruthRow> find_truth(const std::string& testbed, const std::string& sample,
                                     const std::string& hash);
  void put_truth(const std::string& testbed, const std::string& sample, const std::string& hash,
                 const TruthRow& t);

  // The expectation model's answer for a search's sample, stored with the search [000 §2.1].
  struct ExpectationRow {
    std::int64_t search_id = 0;
    std::optional<double> peak_rate;        // nullopt: unbounded
    std::optional<double> saturation_rate;  // nullopt: unbounded
    std::string bottleneck;
    std::string calibrated_json = "[]";
    std::string detail_json = "{}";
  };
  void put_expectation(const ExpectationRow& e);  // replaces an earlier one of the same search
  std::optional<ExpectationRow> expectation(std::int64_t search_id);
  // Ids of the searches of `testbed`, oldest first.
  std::vector<std::int64_t> search_ids(const std::string& testbed);

  // A demand measured on a testbed, per visit of one center [000 §4.1.1].
  struct CalibrationRow {
    std::string testbed;
    std::string center;
    Sample sample;
    double demand_ms = 0;
    std::optional<double> visits;
    std::string source;
    std::string created_at;  // set by the store
  };
  void add_calibration(const CalibrationRow& c);
  // Every calibration of `testbed`, oldest first.
  std::vector<CalibrationRow> calibrations(const std::string& testbed);

  // λ* interval of a finished search (SearchResult::peak_low/high); nullopt when not recorded.
  struct PeakInterval {
    double low = 0;
    std::optional<double> high;  // nullopt: unbounded above
  };
  std::optional<PeakInterval> peak_interval(std::int64_t search_id);

  // The persisted Z-CART tree of a testbed [000 §3.3.1]: ZCart::to_json() text.
  void put_zcart_tree(const std::string& testbed, const std::string& tree_json, std::int64_t observations);
  std::optional<std::string> zcart_tree(const std::string& testbed);

  // A measurement outside the expectation's tolerance [000 §3.2].
  struct MismatchRow {
    std::int64_t id = 0;  // set by the store
    std::string testbed;
    std::int64_t search_id = 0;
    Sample sample;
    double expected = 0, measured = 0, ratio = 0;
    std::string attributes_json = "[]";
    // What expected and measured are: "peak_rate" (λ* of a search, requests/s) or "mean_ms" (the
    // mean response time of a fixed-rate run at one rate).
    std::string metric = "peak_rate";
    std::optional<std::string> center;
    // The centers compared to find `center` (JSON array, see models/mismatch.hpp
    // center_deviations_json); empty when nothing was compared.
    std::string center_json;
    std::string status = "open";
    std::string created_at, closed_at;  // set by the store
  };
  // A probe scheduled by a mismatch [000 §3.3.2]. not_before and locked_at are unix seconds.
  struct ProbeRow {
    std::int64_t id = 0;  // set by the store
    std::string testbed;
    std::int64_t mismatch_id = 0;
    Sample sample;
    std::string attribute;
    double priority = 0;
    std::int64_t not_before = 0;
    std::string status = "planned";
    std::optional<std::int64_t> search_id;
    std::optional<std::string> lock_owner;
    std::optional<std::int64_t> locked_at;
  };
  // Writes a mismatch and its probes in one transaction, skipping a probe whose sample already has a
  // probe that is not cancelled or a search on this testbed (checked inside the transaction, so two
  // planners never plan a sample twice). Returns the mismatch id and the ids of the probes written.
  std::pair<std::int64_t, std::vector<std::int64_t>> add_mismatch(const MismatchRow& m,
                                                                  const std::vector<ProbeRow>& probes);
  std::optional<MismatchRow> mismatch(std::int64_t id);
  // Mismatches of `testbed` whose metric is `metric` (all metrics when empty), oldest first; only
  // the open ones when open_only. The default is λ* mismatches: Z-CART refines λ*, and closing a
  // mismatch compares its prediction with `measured`.
  std::vector<MismatchRow> mismatches(const std::string& testbed, bool open_only,
                                      const std::string& metric = "peak_rate");
  // Whether some mismatch of `testbed` was recorded at this sample before (by sample key).
  bool has_mismatch_at(const std::string& testbed, const Sample& sample);
  void close_mismatch(std::int64_t id);

  std::optional<ProbeRow> probe(std::int64_t id);
  // Probes of `testbed` in run order (priority, then id); planned and running only unless `all`.
  std::vector<ProbeRow> probes(const std::string& testbed, bool all);
  // Atomically moves the due planned probe that runs first (priority, then id) to "running" under
  // `owner`; concurrent callers never get the same probe; nullopt when none is due. A probe locked
  // before `stale_before` (its agent was killed) counts as planned again; the default never reclaims.
  std::optional<ProbeRow> claim_due_probe(const std::string& testbed, const std::string& owner,
                                          std::int64_t now, std::int64_t stale_before = INT64_MIN);
  // Same for one probe, whether due or not; nullopt when it is not planned (running, done,
  // cancelled) — then someone else has it or it is over.
  std::optional<ProbeRow> claim_probe(std::int64_t id, const std::string& owner, std::int64_t now);
  // Ends a claimed probe: "done" with the search that ran it, or back to "planned" (released,
  // e.g. after an interrupt).
  void finish_probe(std::int64_t id, std::optional<std::int64_t> search_id);
  void release_probe(std::int64_t id);
  // Cancels a probe that is not done; returns false when it is done or cancelled already.
  // Throws InputError for an unknown id.
  bool cancel_probe(std::int64_t id);

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
  void set_search_status(std::int64_t id, const std::string& status);
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

  Database& db() { return db_; }

 private:
  std::string path_;
  Database db_;
};

}  // namespace wb::store
