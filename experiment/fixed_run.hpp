#pragma once
// `workbench trial`: N trials of one sample at one fixed rate, stored as a run (policy "fixed"),
// their mean response time with a Student-t CI, and the check against the expectation's R(λ)
// [000 §3.2]. controller/cmd_trial.cpp renders the result.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/stats.hpp"
#include "core/trial.hpp"
#include "experiment/probe_check.hpp"

namespace wb {

// A run of more trials than this is a typo, not a measurement plan.
constexpr int kMaxFixedRunTrials = 1000;

struct FixedRunRequest {
  std::string set;         // factor levels, as --set
  double rate = 0;         // offered rate of every trial, requests/s
  double runlength_s = 0;  // 0: [peak] runlength_s
  int trials = 3;
  std::optional<std::uint64_t> seed;  // nullopt: the config's default seed
  bool verbose = false;               // log every stored trial (and SUT starts)
};

struct FixedRunResult {
  std::int64_t run_id = 0;
  Sample sample;
  double runlength_s = 0;
  std::vector<TrialResult> trials;
  std::vector<bool> saturated;  // per trial (trial_saturated)
  bool any_saturated = false;
  MeanInterval response;  // of the trials' means, at the [peak] target's confidence
  FixedRunCheck check;
  double tolerance = 0;  // [probing] tolerance the check used
  double cost_s = 0;
};

// Validates the request against `config` (InputError before the store at `store_path` is opened),
// runs and stores the trials, and checks them against the expectation; mismatches and planned
// probes are stored, and their lines go to `log`. An interrupted or failed trial leaves the run
// stored as failed with the trials before it, and rethrows.
FixedRunResult run_fixed_rate(const Config& config, const std::string& store_path,
                              const FixedRunRequest& request, std::ostream& log);

}  // namespace wb
