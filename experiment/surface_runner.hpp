#pragma once
// Running the searches of a response surface [003 Alg. 1, outer loop] on K testbed slots at once,
// resumably: a sample's finished search is read back, an unfinished one replayed and continued, and
// only samples without one start a search, so a killed controller loses at most the trials in flight
// (docs/decisions.md#resume-by-replay). A worker measures a point only under its lease, so controllers
// sharing a surface never run a point twice; a point held by a live one is waited for, or taken over.
// Threads: one worker per slot with its own TrialRunner and Store connection; one mutex guards the
// queue and results. Failure: the first exception in a worker stops the others before their next trial
// and is rethrown once all have stopped; an interrupted search is stored "interrupted" to continue.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/factor.hpp"
#include "core/search_result.hpp"
#include "core/trial.hpp"
#include "experiment/leases.hpp"
#include "models/probe_plan.hpp"
#include "policies/search.hpp"
#include "policies/seeding.hpp"
#include "store/store.hpp"

namespace wb {

struct SurfaceRunOptions {
  std::string store_path;
  const Leases* leases = nullptr;  // this controller's; null: run_surface holds its own
  int parallel = 1;                // K slots
  bool seeding = false;            // [003 §3.7] start at the nearest measured sample's λ*
  double budget_s = 0;             // stop starting searches once the total cost reaches it; 0 = none
  SearchOptions search;
  std::string policy;     // load picker name
  double start_rate = 0;  // first load without a seed
  store::SearchRecord
      search_record;  // testbed, target, policy, seed, options of each search (sample set per point)
  // Makes the TrialRunner of slot `slot` (0..parallel-1); called once per slot, on the calling thread.
  std::function<std::unique_ptr<TrialRunner>(int slot)> make_runner;
  // Progress lines (to stderr); may be empty. Called with the mutex held, from any worker.
  std::function<void(const std::string&)> log;
  // The config's factors, for the distance between samples when seeding (policies/seeding.hpp).
  const std::vector<Factor>* factors = nullptr;
  // The expectation model's λ* per sample: seeds are scaled by it (policies/seeding.hpp). May be
  // empty.
  ExpectedPeak expected;
  bool verbose = false;  // log every stored trial
  // After each search this run finishes: its expectation is stored and checked for a mismatch
  // (experiment/probe_check.hpp), which may plan probes. Not called when config is null.
  const Config* config = nullptr;
  ProbeConfig probing;
};

// The outcome of one planned sample.
struct PointOutcome {
  int position = 0;
  std::optional<std::int64_t> search_id;     // nullopt: never started (budget)
  std::optional<store::SearchState> status;  // nullopt when never started
  std::optional<double> peak_rate;           // when found
  double cost_s = 0;                         // every trial of its search, replayed ones included
  int trials = 0;
  int slot = 0;
  double start_rate = 0;
  bool seeded = false;         // start_rate is a nearby sample's λ* [003 §3.7]
  double seed_elasticity = 0;  // the neighbours' elasticity its seeded picker aimed with; 0: none
  double elasticity = 0;       // its own curve's at λ* (policies/curve_fit.hpp), for later seeds; 0: none
  double centre = 0;           // its region's centre (region_centre), where later seeds start from; 0: none
  bool resumed = false;        // continued from trials stored by an earlier run
  bool reused = false;         // an earlier search of the same request (store::reuse_found_search)
  bool ran_now = false;        // this run ran (some of) its search
};

struct SurfaceRun {
  std::vector<PointOutcome> points;  // by position
  bool budget_stopped = false;       // some samples were not started because of the budget
  double cost_s = 0;                 // total machine time: sum of every search's cost (reused ones too)
  double wall_s = 0;                 // the busiest slot's testbed time, as the searches ran (busiest_slot_s)
  int live_trials = 0;               // trials this run executed on the testbed
  int replayed_trials = 0;           // stored trials fed back into resumed searches
  int reused_searches = 0;           // points this run linked to an earlier search of the same request
};

// Runs (or continues) the searches of surface `surface_id`; a point an earlier search of the same
// request (another surface's, a `peak` run's) already found is linked to it, not measured. Throws
// what the workers threw.
SurfaceRun run_surface(std::int64_t surface_id, const SurfaceRunOptions& options);

// The wall time of the searches as they ran: each slot runs its searches one after another, so
// the surface took as long as the slot with the most testbed time (virtual seconds on the
// simulated testbed). Points without a search, or with a reused one, take no time.
double busiest_slot_s(const std::vector<PointOutcome>& points);

}  // namespace wb
