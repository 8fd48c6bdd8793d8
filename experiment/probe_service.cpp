#include "experiment/probe_service.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ostream>
#include <thread>

#include "core/error.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/leases.hpp"
#include "experiment/probe_runner.hpp"
#include "experiment/testbed.hpp"

namespace wb {

namespace {

void check_ids(store::Store& store, const Config& config, const std::vector<std::int64_t>& ids) {
  for (std::int64_t id : ids) {
    auto p = store.probe(id);
    if (!p || p->testbed != config.name())
      throw InputError(fmt::format("no probe {} of testbed {} in store {}", id, config.name(), store.path()));
  }
}

// Sleeps up to `seconds`, waking early on an interrupt.
void interruptible_sleep(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (interrupt_requested()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int run_given(store::Store& store, const ProbeRunner& runner, const std::vector<std::int64_t>& ids,
              ProbeRunResult& out) {
  int ran = 0;
  for (std::int64_t id : ids) {
    reclaim_dead_probes(store, runner.leases, runner.config.name());
    std::optional<store::Store::ProbeRow> p = claim_probe(store, runner.leases, runner.config.name(), id);
    if (!p) {
      out.not_run.emplace_back(id, store.probe(id)->status);
      continue;
    }
    run_claimed_probe(store, runner, *p);
    ++ran;
  }
  return ran;
}

int run_as_agent(store::Store& store, const ProbeRunner& runner, const ProbeRunRequest& request) {
  int ran = 0;
  for (;;) {
    ran += run_due_probes(store, runner, request.max < 0 ? -1 : request.max - ran);
    if (request.once || (request.max > 0 && ran >= request.max)) return ran;
    interruptible_sleep(runner.probing.poll_s);
    check_interrupt();  // between probes nothing is in flight: a clean stop (exit 130)
  }
}

}  // namespace

ProbeListing list_probes(const Config& config, const std::string& store_path, bool all) {
  store::Store store(store_path);
  ProbeListing out;
  out.probes = store.probes(config.name(), all);
  for (const auto& p : out.probes) {
    if (out.mismatches.count(p.mismatch_id) == 0) {
      if (auto m = store.mismatch(p.mismatch_id)) out.mismatches.emplace(p.mismatch_id, *m);
    }
  }
  return out;
}

ProbeRunResult run_probes(const Config& config, const std::string& store_path, const ProbeRunRequest& request,
                          std::ostream& log) {
  if (request.agent) {
    if (request.max == 0 || request.max < -1)
      throw InputError("agent: --max must be a positive number of probes");
  } else if (request.due == !request.ids.empty()) {
    throw InputError("probe run: give either --due or probe ids");
  }
  ProbeConfig probing = probe_config(config);
  PeakRequest peak;
  peak.verbose = request.verbose;
  PreparedPeak prepared = prepare_peak(config, peak);
  validate_testbed(config);
  store::Store store(store_path);
  check_ids(store, config, request.ids);
  Leases leases(store.path(), config.lease_timeout_s());
  leases.sweep(store, log);
  ZCartAttributes attributes(config);
  ProbeRunner runner{config, probing, peak, prepared, leases, log, &attributes};
  ProbeRunResult out;
  if (request.agent) {
    out.ran = run_as_agent(store, runner, request);
  } else if (request.due) {
    out.ran = run_due_probes(store, runner, -1);
  } else {
    out.ran = run_given(store, runner, request.ids, out);
  }
  out.open_mismatches = store.mismatches(config.name(), true).size();
  return out;
}

ProbeCancelResult cancel_probes(const Config& config, const std::string& store_path,
                                const std::vector<std::int64_t>& ids) {
  if (ids.empty()) throw InputError("probe cancel: give the ids of the probes to cancel");
  store::Store store(store_path);
  check_ids(store, config, ids);
  Leases leases(store.path(), config.lease_timeout_s());
  ProbeCancelResult out;
  for (std::int64_t id : ids) {
    std::string why = cancel_probe(store, leases, id);
    if (why.empty()) {
      out.cancelled.push_back(id);
    } else {
      out.refused.push_back({id, store.probe(id)->status, why});
    }
  }
  return out;
}

}  // namespace wb
