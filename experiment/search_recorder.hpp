#pragma once
// Recording a peak search as it runs, and replaying a recorded one after a crash: the search is
// deterministic given its trials, so it resumes by replaying them and runs only the rest
// (docs/decisions.md#resume-by-replay).
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/trial.hpp"
#include "policies/search.hpp"
#include "store/store.hpp"

namespace wb {

// Writes every trial and load to the store as it happens, each in its own transaction; logs them to
// stderr when `verbose`. The first `replayed_trials` reported are already stored and not written
// again. Not thread-safe: one per search, on the thread that runs it.
class StoringObserver final : public SearchObserver {
 public:
  StoringObserver(store::Store& store, std::int64_t search_id, bool verbose, std::size_t replayed_trials = 0)
      : store_(store), search_id_(search_id), verbose_(verbose), replayed_(replayed_trials) {}
  void on_trial(std::size_t load_index, const TrialResult& t) override;
  void on_load(std::size_t load_index, const TestLoad& l) override;
  // Always said on stderr: a failed trial is worth knowing about even when the retry works.
  void on_trial_error(double rate, const std::string& what, bool retrying) override;

 private:
  store::Store& store_;
  std::int64_t search_id_;
  bool verbose_;
  std::size_t replayed_;
  std::size_t seen_ = 0;
};

// The loads of a stored search rebuilt from its trials, in order: rate, trials and saturation (by
// `peak`'s throughput and error limits); the CI and verdict are not filled in.
std::vector<TestLoad> stored_loads(store::Store& store, std::int64_t search_id, const PeakConfig& peak);

// Thrown when a replayed search asks for other trials than the recorded ones. Deliberately not a
// wb::Error: run_search() retries and then absorbs a runner's Error as a failed search, but a
// recording that does not match is a broken resume, which must stop the controller.
class ReplayMismatch final : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Returns the recorded trials of a search, in order, then forwards to `live`. A replayed call must ask
// for the recorded rate and runlength, else run() throws ReplayMismatch rather than resume a different
// search. Not thread-safe.
class ReplayingRunner final : public TrialRunner {
 public:
  ReplayingRunner(TrialRunner& live, std::vector<TrialResult> recorded)
      : live_(live), recorded_(std::move(recorded)) {}
  TrialResult run(const Sample& sample, double rate, double runlength_s, std::uint64_t trial_index) override;

  std::size_t replayed() const { return next_; }
  // Trials that ran on the live runner.
  std::size_t live_trials() const { return live_count_; }

 private:
  TrialRunner& live_;
  std::vector<TrialResult> recorded_;
  std::size_t next_ = 0;
  std::size_t live_count_ = 0;
};

}  // namespace wb
