#pragma once
// Running scheduled probes [000 §3.3.2; issue 8.3]: claim a probe in the store (so two agents never
// run the same one), run a peak search on its sample exactly as `workbench peak` does, check that
// search for a mismatch, add it to the testbed's Z-CART tree and close the mismatches the
// refined tree now predicts within tolerance.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "controller/peak_search.hpp"
#include "controller/zcart_attributes.hpp"
#include "core/config.hpp"
#include "models/probe_plan.hpp"
#include "store/store.hpp"

namespace wb {

struct ProbeRunner {
  const Config& config;
  const ProbeConfig& probing;
  PeakRequest request;
  PreparedPeak prepared;
  std::string owner;  // the lock owner written with each claim
  std::ostream& log;
  // The config's Z-CART attributes, kept for the runner's life so each sample's derived metrics
  // are computed once; null: built per probe.
  const ZCartAttributes* attributes = nullptr;
};

// "host:pid": who holds a probe's lock.
std::string probe_lock_owner();

// Runs a probe already claimed by `runner.owner`, then refines. Returns the search id. On any
// exception the probe is released back to "planned" and the exception propagates.
std::int64_t run_claimed_probe(store::Store& store, const ProbeRunner& runner,
                               const store::Store::ProbeRow& probe);

// Claims and runs due probes one at a time until none is due or `max` ran (max < 0: no limit).
// A probe whose lock is older than [probing] lock_timeout_s is taken over.
// Returns how many ran. Stops early (by exception) on an interrupt.
int run_due_probes(store::Store& store, const ProbeRunner& runner, int max);

// Brings the testbed's stored Z-CART tree up to date with every stored observation (update_zcart:
// the new ones added incrementally, or a refit when the stored tree cannot be extended), stores
// it, and closes each open mismatch whose measured λ* the tree now predicts within the probing
// tolerance. Returns the ids of the mismatches closed.
std::vector<std::int64_t> refine_models(store::Store& store, const Config& config, const ProbeConfig& probing,
                                        std::ostream& log, const ZCartAttributes* attributes = nullptr);

}  // namespace wb
