#pragma once
// Mismatches and the probes they schedule [000 §3.2, §3.3.2].
// One part of store::Store (store/store.hpp), over the database handle the store owns.
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/sample.hpp"

namespace wb::store {

class Database;

// A mismatch's status, and what its expected and measured values are: λ* of a search
// (requests/s) or the mean response time of a fixed-rate run at one rate (ms).
enum class MismatchState { kOpen, kClosed };
enum class MismatchMetric { kPeakRate, kMeanMs };
// A probe's status: planned (due at not_before), running (claimed by an agent), done, cancelled.
enum class ProbeState { kPlanned, kRunning, kDone, kCancelled };
std::string_view to_string(MismatchState state);
std::string_view to_string(MismatchMetric metric);
std::string_view to_string(ProbeState state);

class ProbeStore {
 public:
  explicit ProbeStore(Database& db, std::string path) : db_(db), path_(std::move(path)) {}

  // A measurement outside the expectation's tolerance [000 §3.2].
  struct MismatchRow {
    std::int64_t id = 0;  // set by the store
    std::string testbed;
    std::int64_t search_id = 0;
    Sample sample;
    double expected = 0, measured = 0, ratio = 0;
    std::string attributes_json = "[]";
    MismatchMetric metric = MismatchMetric::kPeakRate;
    std::optional<std::string> center;
    // The centers compared to find `center` (JSON array, see models/mismatch.hpp
    // center_deviations_json); empty when nothing was compared.
    std::string center_json;
    MismatchState status = MismatchState::kOpen;
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
    ProbeState status = ProbeState::kPlanned;
    std::optional<std::int64_t> search_id;
    std::optional<std::string> lock_owner;
    std::optional<std::int64_t> locked_at;
  };
  // Writes a mismatch and its probes in one transaction, skipping a probe whose sample already has a
  // probe that is not cancelled, a search on this testbed, or a point in an unfinished surface
  // (checked inside the transaction, so two planners never plan a sample twice). Returns the
  // mismatch id and the ids of the probes written.
  std::pair<std::int64_t, std::vector<std::int64_t>> add_mismatch(const MismatchRow& m,
                                                                  const std::vector<ProbeRow>& probes);
  // Probes of existing mismatches (each row names its testbed and mismatch), skipped as above; in
  // one transaction. Returns the ids written.
  std::vector<std::int64_t> add_probes(const std::vector<ProbeRow>& probes);
  std::optional<MismatchRow> mismatch(std::int64_t id);
  // Mismatches of `testbed` whose metric is `metric` (all metrics when nullopt), oldest first; only
  // the open ones when open_only. The default is λ* mismatches: Z-CART refines λ*, and closing a
  // mismatch compares its prediction with `measured`.
  std::vector<MismatchRow> mismatches(const std::string& testbed, bool open_only,
                                      std::optional<MismatchMetric> metric = MismatchMetric::kPeakRate);
  // Whether some mismatch of `testbed` was recorded at this sample before (by sample key).
  bool has_mismatch_at(const std::string& testbed, const Sample& sample);
  // Benchmarking seconds spent by the searches of `testbed`'s probes so far (done or running).
  double probe_cost_s(const std::string& testbed);
  void close_mismatch(std::int64_t id);
  // A closed mismatch open again (a later tree predicts it outside the tolerance once more).
  void reopen_mismatch(std::int64_t id);

  std::optional<ProbeRow> probe(std::int64_t id);
  // Probes of `testbed` in run order (highest priority first, then id); planned and running only unless
  // `all`.
  std::vector<ProbeRow> probes(const std::string& testbed, bool all);
  // Atomically moves the due planned probe that runs first (highest priority, then id) to "running" under
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

 private:
  bool insert_probe(const ProbeRow& p);  // false when skipped
  Database& db_;
  std::string path_;
};

}  // namespace wb::store
