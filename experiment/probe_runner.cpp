#include "experiment/probe_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "experiment/expectation_zcart.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/leases.hpp"
#include "experiment/probe_check.hpp"

namespace wb {

std::optional<store::Store::ProbeRow> claim_probe(store::Store& store, const Leases& leases,
                                                  const std::string& testbed,
                                                  std::optional<std::int64_t> id) {
  store::Transaction tx = store.transaction();
  const std::string owner = leases.owner().describe();
  std::optional<store::Store::ProbeRow> p =
      id ? store.claim_probe(*id, owner, unix_now()) : store.claim_due_probe(testbed, owner, unix_now());
  if (!p) return std::nullopt;
  // A planned probe has no live lease; one left by an agent that died before releasing it is dead.
  if (leases.acquire(store, probe_lease(p->id))) return std::nullopt;  // rolled back
  tx.commit();
  return p;
}

std::vector<std::int64_t> reclaim_dead_probes(store::Store& store, const Leases& leases,
                                              const std::string& testbed) {
  std::vector<std::int64_t> ids;
  for (const auto& p : store.probes(testbed, false)) {
    if (p.status != store::ProbeState::kRunning) continue;
    store::Transaction tx = store.transaction();
    std::optional<store::Store::LeaseRow> l = store.lease(probe_lease(p.id));
    if (l && !leases.dead(*l)) continue;
    store.release_probe(p.id);
    if (l) store.release_lease(l->resource, l->owner);
    tx.commit();
    ids.push_back(p.id);
  }
  return ids;
}

namespace {

// After regular probes (their priorities are 100 per attribute rank and up).
constexpr double kBracketPriority = 0;

// A planned probe as a store row, tied to mismatch `mismatch_id`, due after [probing] window_start_s.
store::Store::ProbeRow probe_row(const Config& config, const ProbeConfig& probing, std::int64_t mismatch_id,
                                 const PlannedProbe& p) {
  store::Store::ProbeRow row;
  row.testbed = config.name();
  row.mismatch_id = mismatch_id;
  row.sample = p.sample;
  row.attribute = p.attribute;
  row.priority = p.priority;
  row.not_before = probe_not_before(probing, unix_now());
  return row;
}

// Stores `rows` (those not measured, planned or due from a running surface) and logs each, `why`.
void add_logged(store::Store& store, const std::vector<store::Store::ProbeRow>& rows, const std::string& why,
                std::ostream& log) {
  for (std::int64_t id : store.add_probes(rows))
    log << fmt::format("probe {}: planned {}: {}\n", id, why, store.probe(id)->sample.key());
}

// Probes at the levels between a split's two sides (models/probe_plan.hpp plan_boundary_probes),
// each tied to the newest mismatch under that split; none when no mismatch lies under it.
void plan_bracketing_probes(store::Store& store, const Config& config, const ProbeConfig& probing,
                            std::ostream& log, const ZCartAttributes& attributes, const ZCart& tree) {
  std::vector<PlannedProbe> planned = plan_boundary_probes(tree, config.factors(), kBracketPriority);
  if (planned.empty()) return;
  const std::vector<store::Store::MismatchRow> all = store.mismatches(config.name(), false);
  std::vector<std::pair<std::int64_t, std::vector<double>>> encoded;  // newest first
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (auto v = attributes.encode(it->sample)) encoded.emplace_back(it->id, std::move(*v));
  std::vector<store::Store::ProbeRow> rows;
  for (const PlannedProbe& p : planned) {
    auto m = std::find_if(encoded.begin(), encoded.end(),
                          [&](const auto& e) { return tree.reaches(p.node, e.second.data()); });
    if (m != encoded.end()) rows.push_back(probe_row(config, probing, m->first, p));
  }
  add_logged(store, rows, "to bracket a split of Z-CART", log);
}

// Probes that bisect along each numeric factor between a deviating and an agreeing measured sample
// (models/probe_plan.hpp plan_bisecting_probes), each tied to the newest mismatch on its line.
void plan_bisecting(store::Store& store, const Config& config, const ProbeConfig& probing,
                    std::ostream& log) {
  const std::vector<store::Store::MismatchRow> all = store.mismatches(config.name(), false);
  if (all.empty()) return;
  std::set<std::string> deviating;
  for (const auto& m : all) deviating.insert(m.sample.key());
  std::vector<MeasuredSample> measured;
  std::set<std::string> seen;
  for (const auto& r : measured_vs_expected(store, config.name()))
    if (has_peak(r.search.status) && seen.insert(r.search.sample.key()).second)
      measured.push_back({r.search.sample, deviating.count(r.search.sample.key()) != 0});
  std::vector<store::Store::ProbeRow> rows;
  for (const PlannedProbe& p : plan_bisecting_probes(measured, config.factors(), kBracketPriority)) {
    auto on_line = [&](const store::Store::MismatchRow& m) {
      for (const auto& [name, value] : p.sample.values())
        if (name != p.attribute && (!m.sample.has(name) || m.sample.value(name) != value)) return false;
      return true;
    };
    auto m = std::find_if(all.rbegin(), all.rend(), on_line);
    if (m != all.rend()) rows.push_back(probe_row(config, probing, m->id, p));
  }
  add_logged(store, rows, "to bisect between a deviating and an agreeing sample", log);
}

}  // namespace

std::vector<std::int64_t> refine_models(store::Store& store, const Config& config, const ProbeConfig& probing,
                                        std::ostream& log, const ZCartAttributes* shared) {
  std::optional<ZCartAttributes> own;
  const ZCartAttributes& attributes = shared != nullptr ? *shared : own.emplace(config);
  ZCartUpdate update = update_zcart(store, config, attributes, persisted_zcart_options(config, probing));
  const ZCart& tree = update.tree;
  if (update.refitted)
    log << fmt::format("Z-CART: fitted to {} observation(s)\n", tree.observation_count());
  else
    log << fmt::format("Z-CART: {} observation(s) added, {} in all\n", update.added,
                       tree.observation_count());
  std::vector<std::int64_t> closed;
  // Z-CART learns λ*: only λ* mismatches can be judged by it. A fixed-rate run's mismatch is a
  // mean response time at one rate (ms), and stays open for a person to look at.
  // Every mismatch is judged by the new tree: a refit can undo what an earlier one learned, and a
  // mismatch it closed is open again when the tree is off there once more.
  for (const auto& m : store.mismatches(config.name(), false, store::MismatchMetric::kPeakRate)) {
    if (!attributes.encode(m.sample)) continue;
    ZCartAnswer a = zcart_predict(tree, attributes, m.sample, m.expected);
    const bool within = std::abs(a.value - m.measured) <= probing.tolerance * m.measured;
    if (m.status == store::MismatchState::kClosed) {
      if (within) continue;
      store.reopen_mismatch(m.id);
      log << fmt::format("mismatch {} open again: Z-CART ({}) predicts {:.1f}/s, measured {:.1f}/s\n", m.id,
                         a.rule.empty() ? "root" : a.rule, a.value, m.measured);
      continue;
    }
    if (!within) continue;
    store.close_mismatch(m.id);
    closed.push_back(m.id);
    log << fmt::format("mismatch {} closed: Z-CART ({}) predicts {:.1f}/s, measured {:.1f}/s\n", m.id,
                       a.rule.empty() ? "root" : a.rule, a.value, m.measured);
  }
  plan_bracketing_probes(store, config, probing, log, attributes, tree);
  plan_bisecting(store, config, probing, log);
  return closed;
}

namespace {

// A probe whose search did not finish runs again later (its partial search stays "interrupted"
// or "failed").
void release(store::Store& store, const ProbeRunner& runner, std::int64_t id) {
  if (store.probe(id) && store.probe(id)->status == store::ProbeState::kRunning) store.release_probe(id);
  runner.leases.release(store, probe_lease(id));
}

}  // namespace

std::optional<std::int64_t> run_claimed_probe(store::Store& store, const ProbeRunner& runner,
                                              const store::Store::ProbeRow& probe) {
  const std::string lease = probe_lease(probe.id);
  PeakRequest request = runner.request;
  request.stop = [&leases = runner.leases, lease] { return leases.cancel_requested(lease); };
  try {
    runner.log << fmt::format("probe {}: {} (varies {}, mismatch {})\n", probe.id, probe.sample.key(),
                              probe.attribute, probe.mismatch_id);
    PeakRun run = run_peak_search(runner.config, store, runner.leases, probe.sample, request, runner.prepared,
                                  runner.log);
    store.finish_probe(probe.id, run.search_id);
    runner.leases.release(store, lease);
    runner.log << fmt::format(
        "probe {}: search {} {}\n", probe.id, run.search_id,
        has_peak(run.result.status)
            ? fmt::format("λ* = {:.1f}/s ({})", run.result.peak_rate, to_string(run.result.status))
            : std::string(to_string(run.result.status)));
    check_search(store, runner.config, runner.probing, probe.sample, run.search_id, run.result, probe.id,
                 runner.log, runner.attributes);
    refine_models(store, runner.config, runner.probing, runner.log, runner.attributes);
    return run.search_id;
  } catch (const Interrupted&) {
    if (runner.leases.cancel_requested(lease)) {
      // `probe cancel` asked: the partial search stays "interrupted" (a later peak may resume it).
      store.cancel_probe(probe.id);
      runner.leases.release(store, lease);
      runner.log << fmt::format("probe {}: cancelled while it ran\n", probe.id);
      return std::nullopt;
    }
    release(store, runner, probe.id);
    throw;
  } catch (...) {
    release(store, runner, probe.id);
    throw;
  }
}

int run_due_probes(store::Store& store, const ProbeRunner& runner, int max) {
  int ran = 0;
  while (max < 0 || ran < max) {
    for (std::int64_t id : reclaim_dead_probes(store, runner.leases, runner.config.name()))
      runner.log << fmt::format("probe {}: its agent died; planned again\n", id);
    if (runner.probing.budget_h) {
      const double spent_h = store.probe_cost_s(runner.config.name()) / 3600;
      if (spent_h >= *runner.probing.budget_h) {
        runner.log << fmt::format(
            "probing budget spent: {:.2f} h of [probing] budget_h = {:g} h; planned probes stay planned\n",
            spent_h, *runner.probing.budget_h);
        break;
      }
    }
    std::optional<store::Store::ProbeRow> p =
        claim_probe(store, runner.leases, runner.config.name(), std::nullopt);
    if (!p) break;
    run_claimed_probe(store, runner, *p);
    ++ran;
  }
  return ran;
}

namespace {

// How long `probe cancel` waits for a running probe's agent to stop it.
constexpr double kCancelWaitS = 30;

}  // namespace

std::string cancel_probe(store::Store& store, const Leases& leases, std::int64_t id) {
  std::optional<store::Store::LeaseRow> holder;
  {
    store::Transaction tx = store.transaction();
    const store::ProbeState status = store.probe(id)->status;
    if (status != store::ProbeState::kPlanned && status != store::ProbeState::kRunning)
      return fmt::format("it is {}", to_string(status));
    holder = store.lease(probe_lease(id));
    if (status == store::ProbeState::kPlanned || !holder || leases.dead(*holder)) {  // nobody runs it
      store.cancel_probe(id);
      if (holder) store.release_lease(holder->resource, holder->owner);
      tx.commit();
      return "";
    }
    store.request_cancel(probe_lease(id));
    tx.commit();
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kCancelWaitS);
  while (std::chrono::steady_clock::now() < until) {
    const store::ProbeState status = store.probe(id)->status;
    if (status == store::ProbeState::kCancelled) return "";
    if (status != store::ProbeState::kRunning)
      return fmt::format("it ended ({}) before its agent saw the request", to_string(status));
    std::optional<store::Store::LeaseRow> l = store.lease(probe_lease(id));
    if (!l || leases.dead(*l)) {  // the agent died meanwhile
      store.cancel_probe(id);
      return "";
    }
    check_interrupt();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return fmt::format(
      "its agent {} was asked to stop it and has not within {:.0f} s; it stops at its next "
      "trial (see `workbench probe list`)",
      holder->owner.describe(), kCancelWaitS);
}

}  // namespace wb
