#include "controller/surface_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "controller/interrupt.hpp"
#include "controller/probe_check.hpp"
#include "controller/search_recorder.hpp"
#include "core/error.hpp"
#include "policies/seeding.hpp"

namespace wb {

double schedule_makespan(const std::vector<double>& costs, int slots) {
  std::vector<double> busy(static_cast<std::size_t>(std::max(1, slots)), 0.0);
  for (double c : costs) *std::min_element(busy.begin(), busy.end()) += c;
  return *std::max_element(busy.begin(), busy.end());
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
  Scheduler(const store::SurfaceRecord& rec, const SurfaceRunOptions& o) : surface_id_(rec.id), o_(o) {
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
      out.search_id = p.search_id;
      out.slot = p.slot.value_or(0);
      out.start_rate = p.start_rate.value_or(o.start_rate);
      out.seeded = p.seeded;
      out.seed_elasticity = p.seed_elasticity;
      std::optional<store::SearchRecord> s = store.search(*p.search_id);
      if (!s)
        throw Error(fmt::format("store {}: surface {} names search {}, which does not exist", o.store_path,
                                rec.id, *p.search_id));
      if (s->status == "running") {
        resumable_.push_back(p.position);
      } else {
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
        std::optional<Job> job = next_job(slot);
        if (!job) return;
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
    std::vector<double> costs;
    for (const PointOutcome& p : run_.points) {
      if (p.search_id) costs.push_back(p.cost_s);
      run_.cost_s += p.cost_s;
    }
    run_.wall_s = schedule_makespan(costs, o_.parallel);
    return run_;
  }

 private:
  struct Job {
    int position = 0;
    bool resume = false;
  };

  void record_finished(PointOutcome& out, const std::string& status, std::optional<double> peak, double cost,
                       int trials) {
    out.status = status;
    out.peak_rate = status == "found" ? peak : std::nullopt;
    out.cost_s = cost;
    out.trials = trials;
    done_cost_ += cost;
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

  // Next sample for `slot`: unfinished searches first (they hold a position early in the tour),
  // then the next sample of the tour, unless the budget is spent.
  std::optional<Job> next_job(int slot) {
    std::lock_guard lock(mu_);
    if (stop_) return std::nullopt;
    if (!resumable_.empty()) {
      Job j{resumable_.front(), true};
      resumable_.erase(resumable_.begin());
      return j;
    }
    if (pending_.empty()) return std::nullopt;
    if (o_.budget_s > 0 && total_cost() >= o_.budget_s) {
      if (!run_.budget_stopped && o_.log) {
        o_.log(fmt::format("budget of {:.0f} s reached after {:.0f} s: no new searches", o_.budget_s,
                           total_cost()));
      }
      run_.budget_stopped = true;
      return std::nullopt;
    }
    Job j{pending_.front(), false};
    pending_.erase(pending_.begin());
    PointOutcome& out = run_.points[static_cast<std::size_t>(j.position)];
    out.slot = slot;
    out.start_rate = o_.start_rate;
    if (o_.seeding) {
      // [003 §3.7] the λ* of the nearest sample of this surface measured so far.
      std::vector<PastPeak> past;
      for (const PointOutcome& p : run_.points) {
        if (p.peak_rate)
          past.push_back(
              PastPeak{samples_[static_cast<std::size_t>(p.position)], *p.peak_rate, p.elasticity, p.centre});
      }
      if (o_.factors == nullptr) throw Error("run_surface: seeding needs the config's factors");
      if (auto seed =
              choose_seed(samples_[static_cast<std::size_t>(j.position)], past, *o_.factors, o_.expected)) {
        out.start_rate = seed->rate;
        out.seeded = true;
        out.seed_elasticity = seed->elasticity;
      }
    }
    return j;
  }

  void run_job(store::Store& store, TrialRunner& live, const Job& job) {
    const Sample& sample = samples_[static_cast<std::size_t>(job.position)];
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
      for (const store::StoredTrial& t : store.trials(search_id)) recorded.push_back(t.trial);
    } else {
      store::SearchRecord rec = o_.search_record;
      rec.sample = sample;
      search_id = store.begin_surface_search(surface_id_, job.position, rec, slot, start_rate, seeded,
                                             seed_elasticity);
    }
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
      std::lock_guard lock(mu_);
      run_.live_trials += static_cast<int>(replay.live_trials());
      run_.replayed_trials += static_cast<int>(replay.replayed());
      throw;  // an interrupted search stays "running": the next run continues it
    }
    store.finish_search(search_id, result);
    if (o_.config != nullptr) {
      // The expectation goes with the search (`workbench report`), and a mismatch may plan probes.
      std::ostringstream log;
      check_search(store, *o_.config, o_.probing, sample, search_id, result, std::nullopt, log);
      std::lock_guard lock(mu_);
      if (!log.str().empty()) std::cerr << log.str();
    }
    std::lock_guard lock(mu_);
    PointOutcome& out = run_.points[static_cast<std::size_t>(job.position)];
    out.resumed = job.resume;
    out.ran_now = true;
    run_.live_trials += static_cast<int>(replay.live_trials());
    run_.replayed_trials += static_cast<int>(replay.replayed());
    record_finished(out, to_string(result.status), result.peak_rate, result.cost_s, result.trials);
    if (out.peak_rate) set_curve(out, result.loads);
    if (o_.log) {
      o_.log(fmt::format("slot {}: {} {}: {} trials, {:.0f} s", slot, sample.key(),
                         result.status == SearchStatus::kFound
                             ? fmt::format("λ* = {:.1f}/s", result.peak_rate)
                             : std::string(to_string(result.status)),
                         result.trials, result.cost_s));
    }
  }

  std::int64_t surface_id_;
  const SurfaceRunOptions& o_;
  std::vector<Sample> samples_;  // by position; read-only after construction
  std::mutex mu_;
  // Guarded by mu_:
  SurfaceRun run_;
  std::vector<int> pending_;    // positions without a search, in tour order
  std::vector<int> resumable_;  // positions whose search is unfinished
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
  Scheduler scheduler(*rec, o);

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
