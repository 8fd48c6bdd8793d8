#pragma once
// The progress line a long command shows on stderr while a trial runs (when stderr is a
// terminal): sample, load, trial, the trial's elapsed and expected time, the command's elapsed
// time and the benchmarking cost so far. Pure: the caller reads the clocks and draws the line.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace wb {

// How long the next trial will take on the wall clock: its runlength plus the mean per-trial
// overhead (warm-up, SUT start, generator start, collection: wall time beyond the runlength) of
// the trials that finished so far. Not thread-safe.
class TrialDurationEstimate {
 public:
  // A trial of `runlength_s` that took `wall_s` from call to return.
  void finished(double runlength_s, double wall_s);
  // runlength_s + mean overhead, never below 0; nullopt before any trial finished (the overhead
  // is not known yet).
  std::optional<double> expected_s(double runlength_s) const;

 private:
  double overhead_sum_s_ = 0;
  int trials_ = 0;
};

struct TrialProgress {
  std::string sample;       // Sample::key()
  double rate = 0;          // requests/s
  std::uint64_t trial = 1;  // 1-based
  double runlength_s = 0;
  double trial_elapsed_s = 0;              // since this trial started
  std::optional<double> trial_expected_s;  // TrialDurationEstimate::expected_s
  double elapsed_s = 0;                    // since the command started
  double cost_s = 0;                       // benchmarking cost of the finished trials
};

// "disks=2,threads=8  load 120.0/s  trial 3 (3 s)  2/5 s  elapsed 41 s  cost so far 38 s".
// Without an expected time the trial part reads "2/3+ s": at least the runlength. Cut to
// `max_width` bytes (0: no limit) so that it stays on one terminal line and "\r" can redraw it.
std::string format_progress(const TrialProgress& p, std::size_t max_width = 0);

}  // namespace wb
