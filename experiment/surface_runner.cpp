#include "experiment/surface_runner.hpp"

#include <fmt/format.h>

#include <map>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/probe_check.hpp"
#include "experiment/search_recorder.hpp"
#include "policies/seeding.hpp"

namespace wb {

double busiest_slot_s(const std::vector<PointOutcome>& points) {
  std::map<int, double> busy;
  for (const PointOutcome& p : points) {
    if (p.search_id && !p.reused) busy[p.slot] += p.cost_s;
  }
  double most = 0;
  for (const auto& [slot, s] : busy) most = std::max(most, s);
  return most;
}

namespace {

// Before every trial: stops when the user interrupted or another worker failed.
class StoppableRunner final : public TrialRunner {
 public:
  StoppableRunner(TrialRunner& inner, const std::atomic<bool>& stop) : inner_(inner), stop_(stop) {}
  TrialResult run(const Sample& sample, double rate, double runlength_s, std::uint64_t trial_index) override {
    check();
    TrialResult t = inner_.run(sample, rate, runlength_s, trial_index);
    check();
    return t;
  }

 private:
  void check() const {
    check_interrupt();
    if (stop_.load()) throw Interrupted();
  }
  TrialRunner& inner_;
  const std::atomic<bool>& stop_;
};

// The work of one run_surface call, shared by the workers.
class Scheduler {
 public:
  Scheduler(const store::SurfaceRecord& rec, const SurfaceRunOptions& o, const Leases& leases)
      : surface_id_(rec.id), o_(o), leases_(leases) {
    run_.points.resize(rec.points.size());
    store::Store store(o.store_path);
    for (const store::SurfacePoint& p : rec.points) {
      PointOutcome& out = run_.points[static_cast<std::size_t>(p.position)];
      out.position = p.position;
      samples_.push_back(p.sample);
      if (!p.search_id) {
        pending_.push_back(p.position);
        continue;
      }
      std::optional<store::SearchRecord> s = store.search(*p.search_id);
      if (!s)
        throw Error(fmt::format("store {}: surface {} names search {}, which does not exist", o.store_path,
                                rec.id, *p.search_id));
      if (unfinished(s->status)) {
        resumable_.push_back(p.position);
      } else {
        adopt(out, p);
        record_finished(out, s->status, s->peak_rate, s->cost_s, s->trials);
        if (out.peak_rate) set_curve(out, stored_loads(store, *p.search_id, o.search.peak));
      }
    }
  }

  void worker(int slot, TrialRunner& testbed) {
    try {
      store::Store store(o_.store_path);
      StoppableRunner live(testbed, stop_);
      for (;;) {
        std::optional<Job> job = next_job(slot, store);
        if (!job) return;
        if (job->wait) {
          nap();
          continue;
        }
        run_job(store, live, *job);
      }
    } catch (...) {
      std::lock_guard lock(mu_);
      if (!error_) error_ = std::current_exception();
      stop_ = true;
    }
  }

  SurfaceRun finish() {
    if (error_) std::rethrow_exception(error_);
    for (const PointOutcome& p : run_.points) run_.cost_s += p.cost_s;
    run_.wall_s = busiest_slot_s(run_.points);
    return run_;
  }

 private:
  struct Job {
    int position = 0;
    bool resume = false;
    bool wait = false;  // every point left is held by another live controller: look again later
  };

  // A started point's stored plan. A point with a search but no slot reuses an earlier search.
  void adopt(PointOutcome& out, const store::SurfacePoint& p) const {
    out.search_id = p.search_id;
    out.reused = p.search_id && !p.slot;
    out.slot = p.slot.value_or(0);
    out.start_rate = p.start_rate.value_or(o_.start_rate);
    out.seeded = p.seeded;
    out.seed_elasticity = p.seed_elasticity;
  }

  void record_finished(PointOutcome& out, store::SearchState status, std::optional<double> peak, double cost,
                       int trials) {
    out.status = status;
    out.peak_rate = has_peak(status) ? peak : std::nullopt;
    out.cost_s = cost;
    out.trials = trials;
    if (!out.reused) done_cost_ += cost;  // a reused search costs this surface's budget nothing
  }

  double total_cost() const { return done_cost_; }

  // A found point's elasticity and region centre, for the seeds of later points (of the mean
  // response time: none for a percentile region).
  void set_curve(PointOutcome& out, const std::vector<TestLoad>& loads) const {
    PastPeak p =
        past_peak(samples_[static_cast<std::size_t>(out.position)], loads, *out.peak_rate, o_.search.peak);
    out.elasticity = p.elasticity;
    out.centre = p.centre;
  }

  // Sleeps one heartbeat while other controllers hold the points left, waking early on a stop.
  void nap() const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(leases_.heartbeat_s());
    while (std::chrono::steady_clock::now() < end && !stop_.load() && !interrupt_requested())
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    check_interrupt();
  }

  // Next sample for `slot`: unfinished searches first (they hold a position early in the tour),
  // then the next sample of the tour, unless the budget is spent; then the points other
  // controllers held when last asked. Each only under its point lease.
  std::optional<Job> next_job(int slot, store::Store& store) {
    std::lock_guard lock(mu_);
    if (stop_) return std::nullopt;
    for (std::vector<int>* list : {&resumable_, &pending_, &foreign_}) {
      for (auto it = list->begin(); it != list->end();) {
        const int position = *it;
        if (auto holder = leases_.acquire(store, point_lease(surface_id_, position))) {
          if (list != &foreign_) {
            if (o_.log) {
              o_.log(
                  fmt::format("slot {}: {}; waiting for it", slot,
                              describe_holder(samples_[static_cast<std::size_t>(position)].key(), *holder)));
            }
            foreign_.push_back(position);
            it = list->erase(it);
          } else {
            ++it;
          }
          continue;
        }
        it = list->erase(it);
        if (std::optional<Job> job = take(position, slot, store)) return job;
      }
    }
    if (!foreign_.empty()) return Job{0, false, true};
    return std::nullopt;
  }

  // Decides what to do with a point whose lease this controller just took, from what the store
  // holds now (another controller may have measured it meanwhile). Called with mu_ held.
  std::optional<Job> take(int position, int slot, store::Store& store) {
    const std::string lease = point_lease(surface_id_, position);
    std::optional<store::SurfaceRecord> rec = store.surface(surface_id_);
    const store::SurfacePoint& p = rec->points[static_cast<std::size_t>(position)];
    PointOutcome& out = run_.points[static_cast<std::size_t>(position)];
    if (p.search_id) {
      std::optional<store::SearchRecord> s = store.search(*p.search_id);
      adopt(out, p);
      if (s && unfinished(s->status)) return Job{position, true, false};
      if (s && !out.status) {  // finished by another controller
        record_finished(out, s->status, s->peak_rate, s->cost_s, s->trials);
        if (out.peak_rate) set_curve(out, stored_loads(store, *p.search_id, o_.search.peak));
      }
      leases_.release(store, lease);
      return std::nullopt;
    }
    store::SearchRecord like = o_.search_record;
    like.sample = samples_[static_cast<std::size_t>(position)];
    if (std::optional<std::int64_t> id = store.reuse_found_search(surface_id_, position, like)) {
      std::optional<store::SearchRecord> s = store.search(*id);
      out.search_id = id;
      out.reused = true;
      ++run_.reused_searches;
      record_finished(out, s->status, s->peak_rate, s->cost_s, s->trials);
      set_curve(out, stored_loads(store, *id, o_.search.peak));
      if (o_.log) {
        o_.log(fmt::format("{}: λ* {:.1f}/s from search {}, which measured it with the same settings",
                           like.sample.key(), *out.peak_rate, *id));
      }
      leases_.release(store, lease);
      return std::nullopt;
    }
    if (o_.budget_s > 0 && total_cost() >= o_.budget_s) {
      if (!run_.budget_stopped && o_.log) {
        o_.log(fmt::format("budget of {:.0f} s reached after {:.0f} s: no new searches", o_.budget_s,
                           total_cost()));
      }
      run_.budget_stopped = true;
      leases_.release(store, lease);
      return std::nullopt;
    }
    out.slot = slot;
    out.start_rate = o_.start_rate;
    if (o_.seeding) {
      // [003 §3.7] the λ* of the nearest sample of this surface measured so far.
      std::vector<PastPeak> past;
      for (const PointOutcome& q : run_.points) {
        if (q.peak_rate)
          past.push_back(
              PastPeak{samples_[static_cast<std::size_t>(q.position)], *q.peak_rate, q.elasticity, q.centre});
      }
      if (o_.factors == nullptr) throw Error("run_surface: seeding needs the config's factors");
      if (auto seed =
              choose_seed(samples_[static_cast<std::size_t>(position)], past, *o_.factors, o_.expected)) {
        out.start_rate = seed->rate;
        out.seeded = true;
        out.seed_elasticity = seed->elasticity;
      }
    }
    return Job{position, false, false};
  }

  void run_job(store::Store& store, TrialRunner& live, const Job& job) {
    const Sample& sample = samples_[static_cast<std::size_t>(job.position)];
    const Leases& leases = leases_;
    std::int64_t search_id = 0;
    double start_rate = 0;
    bool seeded = false;
    double seed_elasticity = 0;
    int slot = 0;
    {
      std::lock_guard lock(mu_);
      const PointOutcome& out = run_.points[static_cast<std::size_t>(job.position)];
      start_rate = out.start_rate;
      seeded = out.seeded;
      seed_elasticity = out.seed_elasticity;
      slot = out.slot;
      if (job.resume) search_id = *out.search_id;
    }
    std::vector<TrialResult> recorded;
    if (job.resume) {
      store::Transaction tx = store.transaction();
      if (auto holder = leases.acquire(store, search_lease(search_id)))
        throw Error(describe_holder(fmt::format("search {} of surface {}", search_id, surface_id_), *holder));
      store.set_search_status(search_id, store::SearchState::kRunning);
      tx.commit();
      for (const store::StoredTrial& t : store.trials(search_id)) recorded.push_back(t.trial);
    } else {
      store::SearchRecord rec = o_.search_record;
      rec.sample = sample;
      store::Transaction tx = store.transaction();
      search_id = store.begin_surface_search(surface_id_, job.position, rec, slot, start_rate, seeded,
                                             seed_elasticity);
      leases.acquire(store, search_lease(search_id));  // a new search: free
      tx.commit();
    }
    const std::string point = point_lease(surface_id_, job.position);
    {
      std::lock_guard lock(mu_);
      run_.points[static_cast<std::size_t>(job.position)].search_id = search_id;
      if (o_.log) {
        o_.log(fmt::format("slot {}: {} {} (search {}, start {:.1f}/s{})", slot,
                           job.resume ? "resuming" : "measuring", sample.key(), search_id, start_rate,
                           recorded.empty() ? "" : fmt::format(", {} stored trials", recorded.size())));
      }
    }
    std::unique_ptr<LoadPicker> picker =
        make_picker(o_.policy, o_.search.peak, start_rate, seeded, seed_elasticity);
    ReplayingRunner replay(live, recorded);
    StoringObserver observer(store, search_id, o_.verbose, recorded.size());
    SearchResult result;
    try {
      result = run_search(sample, o_.search, *picker, replay, &observer);
    } catch (...) {
      // The next run (or another controller now) continues it from its stored trials.
      store.set_search_status(search_id, store::SearchState::kInterrupted);
      leases.release(store, search_lease(search_id));
      leases.release(store, point);
      std::lock_guard lock(mu_);
      run_.live_trials += static_cast<int>(replay.live_trials());
      run_.replayed_trials += static_cast<int>(replay.replayed());
      throw;
    }
    std::ostringstream log;
    store.finish_search(search_id, result);
    // The expectation goes with the search (`workbench report`), and a mismatch may plan probes.
    // Not in the result's transaction: solving the model can take seconds, and the other slots'
    // connections would wait for the write lock meanwhile.
    if (o_.config != nullptr)
      check_search(store, *o_.config, o_.probing, sample, search_id, result, std::nullopt, log);
    leases.release(store, search_lease(search_id));
    leases.release(store, point);
    std::lock_guard lock(mu_);
    if (!log.str().empty()) std::cerr << log.str();
    PointOutcome& out = run_.points[static_cast<std::size_t>(job.position)];
    out.resumed = job.resume;
    out.ran_now = true;
    run_.live_trials += static_cast<int>(replay.live_trials());
    run_.replayed_trials += static_cast<int>(replay.replayed());
    record_finished(out, store::state_of(result.status), result.peak_rate, result.cost_s, result.trials);
    if (out.peak_rate) set_curve(out, result.loads);
    if (o_.log) {
      o_.log(fmt::format("slot {}: {} {}: {} trials, {:.0f} s", slot, sample.key(),
                         has_peak(result.status)
                             ? fmt::format("λ* = {:.1f}/s ({})", result.peak_rate, to_string(result.status))
                             : std::string(to_string(result.status)),
                         result.trials, result.cost_s));
    }
  }

  std::int64_t surface_id_;
  const SurfaceRunOptions& o_;
  const Leases& leases_;
  std::vector<Sample> samples_;  // by position; read-only after construction
  std::mutex mu_;
  // Guarded by mu_:
  SurfaceRun run_;
  std::vector<int> pending_;    // positions without a search, in tour order
  std::vector<int> resumable_;  // positions whose search is unfinished
  std::vector<int> foreign_;    // positions another live controller held when last asked
  double done_cost_ = 0;
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
};

}  // namespace

SurfaceRun run_surface(std::int64_t surface_id, const SurfaceRunOptions& o) {
  std::optional<store::SurfaceRecord> rec;
  {
    store::Store store(o.store_path);
    rec = store.surface(surface_id);
  }
  if (!rec) throw Error(fmt::format("store {} has no surface {}", o.store_path, surface_id));
  std::optional<Leases> own;  // a caller without leases of its own (a benchmark, a test)
  const Leases& leases = o.leases != nullptr ? *o.leases : own.emplace(o.store_path, kDefaultLeaseTimeoutS);
  Scheduler scheduler(*rec, o, leases);

  const int k = std::max(1, o.parallel);
  std::vector<std::unique_ptr<TrialRunner>> runners;
  runners.reserve(static_cast<std::size_t>(k));
  for (int s = 0; s < k; ++s) runners.push_back(o.make_runner(s));
  if (k == 1) {
    scheduler.worker(0, *runners[0]);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(k));
    for (int s = 0; s < k; ++s)
      threads.emplace_back(
          [&scheduler, &runners, s] { scheduler.worker(s, *runners[static_cast<std::size_t>(s)]); });
    for (std::thread& t : threads) t.join();
  }
  return scheduler.finish();
}

}  // namespace wb
