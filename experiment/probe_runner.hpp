#pragma once
// Running scheduled probes [000 §3.3.2]: claim one in the store (two agents never run the same one),
// search its sample as `workbench peak` does, check for a mismatch, add it to the testbed's Z-CART
// tree and close the mismatches the refined tree now predicts within tolerance.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "experiment/peak_search.hpp"
#include "experiment/zcart_attributes.hpp"
#include "models/probe_plan.hpp"
#include "store/store.hpp"

namespace wb {

struct ProbeRunner {
  const Config& config;
  const ProbeConfig& probing;
  PeakRequest request;
  PreparedPeak prepared;
  const Leases& leases;  // this controller's: each claimed probe is held under a lease
  std::ostream& log;
  // The config's Z-CART attributes, kept for the runner's life so each sample's derived metrics
  // are computed once; null: built per probe.
  const ZCartAttributes* attributes = nullptr;
};

// Claims probe `id` (or, with nullopt, the due probe that runs first) under a lease of
// `leases`, in one transaction. nullopt when it is not planned (or none is due).
std::optional<store::Store::ProbeRow> claim_probe(store::Store& store, const Leases& leases,
                                                  const std::string& testbed, std::optional<std::int64_t> id);

// Puts back to "planned" every running probe of `testbed` whose agent died (its lease is gone
// or dead, experiment/leases.hpp), so that it runs again. Returns their ids.
std::vector<std::int64_t> reclaim_dead_probes(store::Store& store, const Leases& leases,
                                              const std::string& testbed);

// Runs a probe claimed under `runner.leases`, then refines. Returns the search id, or nullopt when
// the probe was cancelled while it ran (`workbench probe cancel`: it is then "cancelled"). On any
// exception the probe is released back to "planned" and the exception propagates.
std::optional<std::int64_t> run_claimed_probe(store::Store& store, const ProbeRunner& runner,
                                              const store::Store::ProbeRow& probe);

// Claims and runs due probes one at a time until none is due or `max` ran (max < 0: no limit).
// A running probe whose agent died is taken over first. Returns how many ran (cancelled ones
// included). Stops early (by exception) on an interrupt.
int run_due_probes(store::Store& store, const ProbeRunner& runner, int max);

// Cancels probe `id` (`workbench probe cancel`): a planned one, or a running one whose agent is
// gone, at once; a live agent's through a cancel request it sees at its next heartbeat, waiting up
// 30 s for it. Returns "" when cancelled, else why not.
std::string cancel_probe(store::Store& store, const Leases& leases, std::int64_t id);

// Brings the testbed's stored Z-CART tree up to date with every stored observation (update_zcart),
// stores it, closes each open mismatch whose measured λ* it now predicts within the probing
// tolerance and reopens each closed one it predicts outside it, and plans probes that bracket its
// splits on factors (plan_boundary_probes). Returns the ids of the mismatches closed.
std::vector<std::int64_t> refine_models(store::Store& store, const Config& config, const ProbeConfig& probing,
                                        std::ostream& log, const ZCartAttributes* attributes = nullptr);

}  // namespace wb
