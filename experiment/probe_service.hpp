#pragma once
// The probe commands as calls [000 §3.3.2]: list a testbed's probes with their mismatches, run
// probes now (given ones, the due ones, or as an agent that waits for more), cancel probes.
// Each opens the store itself and checks its input before changing anything.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "store/store.hpp"

namespace wb {

struct ProbeListing {
  std::vector<store::Store::ProbeRow> probes;
  std::map<std::int64_t, store::Store::MismatchRow> mismatches;  // of the listed probes, by id
};

// The planned and running probes of the testbed (all: every probe), with their mismatches.
ProbeListing list_probes(const Config& config, const std::string& store_path, bool all);

struct ProbeRunRequest {
  bool due = false;               // every due probe (else `ids`)
  std::vector<std::int64_t> ids;  // these probes, in this order
  bool agent = false;             // run due probes as they fall due, polling [probing] poll_s
  bool once = false;              // agent: stop when none is due now
  int max = -1;                   // agent: stop after this many probes (-1: no limit)
  bool verbose = false;
};

struct ProbeRunResult {
  int ran = 0;                                                      // cancelled ones included
  std::vector<std::pair<std::int64_t, store::ProbeState>> not_run;  // given ids that were not planned
  std::size_t open_mismatches = 0;                                  // after the run
};

// Runs probes as `request` says; InputError for a request that names none, or an id that is not
// the testbed's. Stops (by exception) on an interrupt; an agent's clean stop between probes too.
ProbeRunResult run_probes(const Config& config, const std::string& store_path, const ProbeRunRequest& request,
                          std::ostream& log);

struct ProbeCancelResult {
  struct Refused {
    std::int64_t id = 0;
    store::ProbeState status = store::ProbeState::kPlanned;
    std::string reason;
  };
  std::vector<std::int64_t> cancelled;
  std::vector<Refused> refused;
};

// Cancels the given probes (experiment/probe_runner.hpp cancel_probe). Every id is checked before
// any is cancelled: an id that is not the testbed's is an InputError and changes nothing.
ProbeCancelResult cancel_probes(const Config& config, const std::string& store_path,
                                const std::vector<std::int64_t>& ids);

}  // namespace wb
