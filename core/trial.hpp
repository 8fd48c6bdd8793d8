#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "core/sample.hpp"

namespace wb {

// What one trial measured: one run of the load generator at offered rate λ for runlength r.
struct TrialResult {
  double offered_rate = 0;   // λ, requests/s
  double achieved_rate = 0;  // completed requests/s over the measured interval
  double runlength_s = 0;    // r (excluding warm-up)
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t errors = 0;  // failed requests, timeouts included
  double mean_ms = 0;
  double p50_ms = 0, p90_ms = 0, p95_ms = 0, p99_ms = 0, max_ms = 0;
  double cost_s = 0;  // benchmarking time this trial cost: warm-up + r + overhead
  // Mean time per request in each SUT stage (sut/stage_stats.hpp), ms, by stage name, over every request
  // served during the trial, warm-up included. Empty when the SUT does not report stages (other servers,
  // the simulated testbed) or its statistics could not be read.
  std::map<std::string, double> stage_ms;
  // The trial's per-operation I/O trace, CSV as models/io_trace.hpp reads it ([workload] trace =
  // true), generators' records merged; empty otherwise. Stored with the trial.
  std::string io_trace;
};

// Throws Error naming the field ("trial.mean_ms: -20000 ...") unless `t` is a possible measurement:
// rates, times and counts finite, in range and consistent (completed, errors <= sent; p50 <= ... <= max,
// mean <= max). Runners call it last, so nothing impossible reaches a search or the store.
void check_trial(const TrialResult& t);

// Runs trials on some testbed. The peak search sees only this interface, so the same search code runs
// against the simulated testbed and real hosts. A trial that cannot run at all throws Error.
class TrialRunner {
 public:
  virtual ~TrialRunner() = default;
  // Runs one trial of `sample` at offered load `rate` (requests/s) for `runlength_s` seconds of
  // measurement. `trial_index` numbers trials of the same search (0, 1, ...); a simulated runner
  // derives its random stream from it so a search is reproducible.
  virtual TrialResult run(const Sample& sample, double rate, double runlength_s,
                          std::uint64_t trial_index) = 0;
};

}  // namespace wb
