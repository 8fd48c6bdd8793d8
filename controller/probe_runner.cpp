#include "controller/probe_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <ostream>

#include "controller/expectation_zcart.hpp"
#include "controller/probe_check.hpp"

namespace wb {

std::string probe_lock_owner() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return fmt::format("{}:{}", host, getpid());
}

std::vector<std::int64_t> refine_models(store::Store& store, const Config& config, const ProbeConfig& probing,
                                        std::ostream& log, const ZCartAttributes* shared) {
  std::optional<ZCartAttributes> own;
  const ZCartAttributes& attributes = shared != nullptr ? *shared : own.emplace(config);
  ZCartUpdate update = update_zcart(store, config, attributes, persisted_zcart_options(probing));
  const ZCart& tree = update.tree;
  if (update.refitted)
    log << fmt::format("Z-CART: fitted to {} observation(s)\n", tree.observation_count());
  else
    log << fmt::format("Z-CART: {} observation(s) added, {} in all\n", update.added,
                       tree.observation_count());
  std::vector<std::int64_t> closed;
  // Z-CART learns λ*: only λ* mismatches can be judged by it. A fixed-rate run's mismatch is a
  // mean response time at one rate (ms), and stays open for a person to look at.
  for (const auto& m : store.mismatches(config.name(), true, "peak_rate")) {
    if (!attributes.encode(m.sample)) continue;
    ZCartAnswer a = zcart_predict(tree, attributes, m.sample, m.expected);
    if (std::abs(a.value - m.measured) > probing.tolerance * m.measured) continue;
    store.close_mismatch(m.id);
    closed.push_back(m.id);
    log << fmt::format("mismatch {} closed: Z-CART ({}) predicts {:.1f}/s, measured {:.1f}/s\n", m.id,
                       a.rule.empty() ? "root" : a.rule, a.value, m.measured);
  }
  return closed;
}

std::int64_t run_claimed_probe(store::Store& store, const ProbeRunner& runner,
                               const store::Store::ProbeRow& probe) {
  try {
    runner.log << fmt::format("probe {}: {} (varies {}, mismatch {})\n", probe.id, probe.sample.key(),
                              probe.attribute, probe.mismatch_id);
    PeakRun run =
        run_peak_search(runner.config, store, probe.sample, runner.request, runner.prepared, runner.log);
    store.finish_probe(probe.id, run.search_id);
    runner.log << fmt::format("probe {}: search {} {}\n", probe.id, run.search_id,
                              run.result.status == SearchStatus::kFound
                                  ? fmt::format("λ* = {:.1f}/s", run.result.peak_rate)
                                  : std::string(to_string(run.result.status)));
    check_search(store, runner.config, runner.probing, probe.sample, run.search_id, run.result, probe.id,
                 runner.log, runner.attributes);
    refine_models(store, runner.config, runner.probing, runner.log, runner.attributes);
    return run.search_id;
  } catch (...) {
    // A probe whose search did not finish runs again later (its partial search stays "failed").
    if (store.probe(probe.id) && store.probe(probe.id)->status == "running") store.release_probe(probe.id);
    throw;
  }
}

int run_due_probes(store::Store& store, const ProbeRunner& runner, int max) {
  int ran = 0;
  while (max < 0 || ran < max) {
    const std::int64_t now = unix_now();
    const std::int64_t stale_before = runner.probing.lock_timeout_s > 0
                                          ? now - static_cast<std::int64_t>(runner.probing.lock_timeout_s)
                                          : INT64_MIN;
    std::optional<store::Store::ProbeRow> p =
        store.claim_due_probe(runner.config.name(), runner.owner, now, stale_before);
    if (!p) break;
    run_claimed_probe(store, runner, *p);
    ++ran;
  }
  return ran;
}

}  // namespace wb
