#include "policies/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "policies/runlength.hpp"

namespace wb {

namespace {

// Second measurements a search may make when its bracket collapses (run_search): enough for a
// load to go from runlength_s to 8x, or for three loads once each; a failing search costs at most
// this many extra loads.
constexpr int kMaxRetries = 3;

// A load judged above or below by its mean alone: its CI at the target confidence still overlaps
// the peak-rate region (judge_load's early and last-look decisions), so it is no evidence that the
// load is off the peak.
bool judged_by_mean(const TestLoad& load, const SearchOptions& options) {
  if (load.saturated || load.verdict == Verdict::kPeak || load.trials.size() < 2) return false;
  return options.peak.region.overlaps(load.ci);
}

// A cliff: the response of the load just above the knee is this many times the region's upper edge
// (or it saturated), and the two loads are closer than kCliffResolution of the accuracy's tolerance
// (1 − a) apart, so λ* at the knee is that close to the jump (docs/decisions.md#cliffs).
constexpr double kCliffJump = 2;
constexpr double kCliffResolution = 0.25;

// One run of [003 Alg. 2]: the loop picks a load (the picker, a collapsed-bracket retry, or the
// strawman's end), measures it and stops on a claim, a failure or a budget.
class SearchRun {
 public:
  SearchRun(const Sample& sample, const SearchOptions& options, LoadPicker& picker, TrialRunner& runner,
            SearchObserver* observer, RunlengthPolicy* runlength)
      : sample_(sample),
        options_(options),
        p_(options.peak),
        picker_(picker),
        runner_(runner),
        observer_(observer),
        runlength_(runlength),
        plan_(picker.fixed_plan()) {}

  SearchResult run() {
    // The strawman walks until saturation whatever max_loads says; bounded all the same.
    const int max_loads = plan_ ? std::max(p_.max_loads, 10000) : p_.max_loads;
    max_loads_ = max_loads;
    for (;;) {
      if (!plan_) {
        if (std::optional<SearchResult> knee = cliff(false)) return *knee;
        if (std::optional<SearchResult> done = confirm_cliff()) return *done;
        if (confirmed_) {
          confirmed_ = false;
          continue;
        }
      }
      if (static_cast<int>(result_.loads.size()) >= max_loads) {
        if (std::optional<SearchResult> band = bistable()) return *band;
        return stop(SearchStatus::kNotFound,
                    fmt::format("no peak within max_loads = {} test loads", max_loads));
      }
      std::optional<double> retry_runlength;
      std::optional<double> rate = picker_.next(active_loads());
      if (!rate && !plan_) rate = retry_load(retry_runlength);
      if (!rate && plan_) return strawman_result();
      if (!rate) {
        if (std::optional<SearchResult> knee = cliff(true)) return *knee;
        if (std::optional<SearchResult> done = confirm_cliff()) return *done;
        if (confirmed_) {
          confirmed_ = false;
          continue;
        }
        if (std::optional<SearchResult> band = bistable()) return *band;
        return stop(
            SearchStatus::kNotFound,
            "the load bracket collapsed without a load whose response time falls in the peak-rate region");
      }
      if (std::optional<SearchResult> done = measure(*rate, retry_runlength)) return *done;
    }
  }

 private:
  SearchResult stop(SearchStatus s, std::string why) {
    result_.status = s;
    result_.message = std::move(why);
    return result_;
  }

  // A cliff: the response crosses the whole region between two loads closer than the accuracy
  // asks, from the highest load judged below (its mean under the region) to the lowest above that,
  // with no load between them inside the region on average, so bisecting further only measures the
  // step and λ* is the knee, the last load below. Before the bracket collapses the load above must
  // show a jump: saturated, or a CI wholly above kCliffJump times the region's top; once it has
  // collapsed, a mean above the region will do. One reading of the jump may be a stall, so the load
  // above must have been measured twice: the first time it would end the search, cliff() asks for
  // that (confirm_) instead (docs/decisions.md#cliffs).
  std::optional<SearchResult> cliff(bool collapsed) {
    const PeakRegion& region = p_.region;
    const std::vector<TestLoad>& loads = active_loads();
    auto above = [&](const TestLoad& l) {
      return l.verdict == Verdict::kAbove &&
             (l.saturated || (collapsed ? l.ci.mean : l.ci.low) > region.high_ms());
    };
    const TestLoad* hi = nullptr;
    for (const auto& l : loads) {
      if (above(l) && (hi == nullptr || l.rate < hi->rate)) hi = &l;
    }
    if (hi == nullptr || (!collapsed && !hi->saturated && !(hi->ci.low > kCliffJump * region.high_ms())))
      return std::nullopt;
    // A knee lies at or below every stall seen, superseded loads' included: a load that kept up
    // above a stall is one side of a bistable band, not the step's foot.
    const StallBand seen = stall_band();
    const double knee_limit = std::min(hi->rate, seen.stall_rate);
    const TestLoad* lo = nullptr;
    for (const auto& l : loads) {
      if (l.verdict == Verdict::kBelow && l.rate <= knee_limit && (lo == nullptr || l.rate > lo->rate))
        lo = &l;
    }
    const double resolution = kCliffResolution * (1 - options_.target.accuracy);
    if (lo == nullptr || !(lo->ci.mean < region.low_ms()) || hi->rate - lo->rate > resolution * lo->rate)
      return std::nullopt;
    for (const auto& l : loads) {
      const bool inside = l.ci.mean >= region.low_ms() && l.ci.mean <= region.high_ms();
      if (l.rate > lo->rate && l.rate < hi->rate && l.trials.size() >= 2 && inside) return std::nullopt;
    }
    // Trials that kept up over a wider band than the resolution, above a stall: no step.
    if (seen.coexist() && seen.calm_rate > seen.stall_rate * (1 + resolution)) return bistable();
    const std::size_t hi_index = original_index(hi);
    if (remeasured_.count(hi_index) == 0 && static_cast<int>(retried_.size()) < kMaxRetries &&
        hi->runlength_s * 2 <= p_.max_runlength_s && static_cast<int>(result_.loads.size()) < max_loads_) {
      confirm_ = hi_index;
      return std::nullopt;
    }
    result_.status = SearchStatus::kCliff;
    result_.peak_rate = lo->rate;
    result_.response = lo->ci;
    result_.peak_low = lo->rate;
    result_.peak_high = hi->rate;
    // Both sides seen at one rate: the interval reaches to the nearest loads around it, if close.
    if (lo->rate == hi->rate) {
      double nearest_below = 0, nearest_above = std::numeric_limits<double>::infinity();
      for (const auto& l : loads) {
        if (l.verdict == Verdict::kBelow && l.rate < lo->rate)
          nearest_below = std::max(nearest_below, l.rate);
        if (above(l) && l.rate > hi->rate) nearest_above = std::min(nearest_above, l.rate);
      }
      if (nearest_below >= lo->rate * (1 - resolution)) result_.peak_low = nearest_below;
      if (nearest_above <= hi->rate * (1 + resolution)) result_.peak_high = nearest_above;
    }
    result_.message = fmt::format(
        "the response rises from {:.3g} ms to {} within [{:.6g}, {:.6g}]/s ({:.2g}% apart): λ* is the knee "
        "at "
        "{:.6g}/s",
        lo->ci.mean, hi->saturated ? std::string("saturation") : fmt::format("{:.3g} ms", hi->ci.mean),
        result_.peak_low, result_.peak_high, (result_.peak_high / result_.peak_low - 1) * 100, lo->rate);
    return result_;
  }

  // Where the trials of all loads, superseded ones included, fell into a queue they did not leave
  // (stalled: saturated, or a mean past kCliffJump times the region's top) and where they kept up
  // (calm: a mean under the region).
  struct StallBand {
    double stall_rate = std::numeric_limits<double>::infinity();  // the lowest rate of a stalled trial
    double calm_rate = 0;                                         // the highest rate of a calm trial
    int stalls_in_band = 0;                                       // stalled trials at or below calm_rate
    int calms_above_stall = 0;                                    // calm trials at or above stall_rate
    bool coexist() const { return calm_rate >= stall_rate; }
  };
  StallBand stall_band() const {
    const PeakRegion& region = p_.region;
    StallBand b;
    auto calm = [&](const TrialResult& t) { return !trial_saturated(t, p_) && t.mean_ms < region.low_ms(); };
    for (const auto& l : result_.loads) {
      for (const auto& t : l.trials) {
        if (stalled(t)) {
          b.stall_rate = std::min(b.stall_rate, l.rate);
        } else if (calm(t)) {
          b.calm_rate = std::max(b.calm_rate, l.rate);
        }
      }
    }
    for (const auto& l : result_.loads) {
      for (const auto& t : l.trials) {
        b.calms_above_stall += static_cast<int>(l.rate >= b.stall_rate && calm(t));
        b.stalls_in_band += static_cast<int>(l.rate <= b.calm_rate && stalled(t));
      }
    }
    return b;
  }
  bool stalled(const TrialResult& t) const {
    return trial_saturated(t, p_) || t.mean_ms > kCliffJump * p_.region.high_ms();
  }

  // A server that is bistable over a band of loads: at one rate a trial either keeps up or falls into
  // a queue it does not leave, so verdicts in the band flip between measurements and no load answers
  // inside the region. Evidence: a calm trial at or above the lowest rate of a stalled one
  // (stall_band). λ* is then the highest load below every stall whose trials all kept up, and the
  // loads that could be the peak reach to the highest calm trial (docs/decisions.md#bistable). Only
  // where the search would otherwise end without a peak, or claim a cliff over a wider band.
  std::optional<SearchResult> bistable() {
    const StallBand b = stall_band();
    if (!b.coexist()) return std::nullopt;
    const TestLoad* knee = nullptr;
    for (const auto& l : active_loads()) {
      if (l.verdict != Verdict::kBelow || l.rate >= b.stall_rate || (knee != nullptr && l.rate <= knee->rate))
        continue;
      if (std::none_of(l.trials.begin(), l.trials.end(), [&](const TrialResult& t) { return stalled(t); }))
        knee = &l;
    }
    if (knee == nullptr) return std::nullopt;
    result_.status = SearchStatus::kBistable;
    result_.peak_rate = knee->rate;
    result_.response = knee->ci;
    result_.peak_low = knee->rate;
    result_.peak_high = b.calm_rate;
    result_.message = fmt::format(
        "bistable within [{:.6g}, {:.6g}]/s: there {} trials fell into a queue (saturated or past {:.3g} ms) "
        "and {} kept up (under {:.3g} ms); λ* is the highest load below every stall that always kept up, "
        "{:.6g}/s",
        b.stall_rate, b.calm_rate, b.stalls_in_band, kCliffJump * p_.region.high_ms(), b.calms_above_stall,
        p_.region.low_ms(), knee->rate);
    return result_;
  }

  // The cliff's load above, measured again at twice its runlength; its new verdict replaces the
  // old. The search's result when that measurement ends it.
  std::optional<SearchResult> confirm_cliff() {
    if (!confirm_) return std::nullopt;
    const std::size_t i = *confirm_;
    confirm_.reset();
    confirmed_ = true;
    retried_.insert(i);
    superseded_.insert(i);
    const TestLoad load = result_.loads[i];
    return measure(load.rate, load.runlength_s * 2);
  }

  // The index in result_.loads of a load of active_loads().
  std::size_t original_index(const TestLoad* load) const {
    if (superseded_.empty()) return static_cast<std::size_t>(load - result_.loads.data());
    std::size_t k = static_cast<std::size_t>(load - active_.data());
    for (std::size_t i = 0; i < result_.loads.size(); ++i) {
      if (superseded_.count(i) != 0) continue;
      if (k-- == 0) return i;
    }
    return result_.loads.size();
  }

  // set_peak_interval over the active loads (a superseded load is no evidence).
  void set_interval(bool fixed_plan) {
    if (superseded_.empty()) {
      set_peak_interval(result_, options_, fixed_plan);
      return;
    }
    SearchResult view = result_;
    view.loads = active_loads();
    set_peak_interval(view, options_, fixed_plan);
    result_.peak_low = view.peak_low;
    result_.peak_high = view.peak_high;
  }

  // The loads every decision reads: all but those a retry at the same rate measured again.
  // (A copy only once a load is superseded, which takes a collapsed bracket.)
  const std::vector<TestLoad>& active_loads() {
    if (superseded_.empty()) return result_.loads;
    active_.clear();
    for (std::size_t i = 0; i < result_.loads.size(); ++i)
      if (superseded_.count(i) == 0) active_.push_back(result_.loads[i]);
    return active_;
  }

  // The bracket's upper end, when it may be one stall rather than the peak's edge: above the region
  // but not saturated, without the jump a cliff shows (CI wholly above kCliffJump times the region's
  // top), and within the cliff resolution of a load whose mean lies under the region. Its index.
  std::optional<std::size_t> doubtful_upper_end() const {
    const PeakRegion& region = p_.region;
    std::optional<std::size_t> hi;
    for (std::size_t i = 0; i < result_.loads.size(); ++i) {
      const TestLoad& l = result_.loads[i];
      if (superseded_.count(i) == 0 && l.verdict == Verdict::kAbove &&
          (!hi || l.rate < result_.loads[*hi].rate))
        hi = i;
    }
    if (!hi) return std::nullopt;
    const TestLoad& h = result_.loads[*hi];
    if (h.saturated || h.ci.low > kCliffJump * region.high_ms() || retried_.count(*hi) != 0 ||
        h.runlength_s * 2 > p_.max_runlength_s)
      return std::nullopt;
    const TestLoad* lo = nullptr;
    for (std::size_t i = 0; i < result_.loads.size(); ++i) {
      const TestLoad& l = result_.loads[i];
      if (superseded_.count(i) == 0 && l.verdict == Verdict::kBelow && l.rate < h.rate &&
          (lo == nullptr || l.rate > lo->rate))
        lo = &l;
    }
    const double resolution = kCliffResolution * (1 - options_.target.accuracy);
    if (lo == nullptr || !(lo->ci.mean < region.low_ms()) || h.rate - lo->rate > resolution * lo->rate)
      return std::nullopt;
    return hi;
  }

  // The bracket collapsed without a claim. First its upper end when that may be one stall
  // (doubtful_upper_end): the bracket would close under it for good, so it runs again at twice its
  // runlength and that verdict replaces its own. Then a load judged by its mean, which may have
  // been the peak, too noisy to show it: the one nearest R_sat runs again at twice its runlength.
  // At most kMaxRetries times in all (docs/decisions.md#collapsed-bracket-retry).
  std::optional<double> retry_load(std::optional<double>& retry_runlength) {
    if (static_cast<int>(retried_.size()) >= kMaxRetries) return std::nullopt;
    if (std::optional<std::size_t> upper = doubtful_upper_end()) {
      retried_.insert(*upper);
      superseded_.insert(*upper);
      retry_runlength = result_.loads[*upper].runlength_s * 2;
      return result_.loads[*upper].rate;
    }
    const double sat = p_.region.sat_ms;
    const TestLoad* best = nullptr;
    for (std::size_t i = 0; i < result_.loads.size(); ++i) {
      const TestLoad& l = result_.loads[i];
      if (retried_.count(i) != 0 || superseded_.count(i) != 0 || !judged_by_mean(l, options_) ||
          l.runlength_s * 2 > p_.max_runlength_s)
        continue;
      if (best == nullptr || std::abs(l.ci.mean - sat) < std::abs(best->ci.mean - sat)) best = &l;
    }
    if (best == nullptr) return std::nullopt;
    retried_.insert(static_cast<std::size_t>(best - result_.loads.data()));
    retry_runlength = best->runlength_s * 2;
    return best->rate;
  }

  // [003 Alg. 1]: the strawman's λ* is the largest load that does not saturate.
  SearchResult strawman_result() {
    const std::vector<TestLoad>& loads = active_loads();
    double hi = std::numeric_limits<double>::infinity();
    for (const auto& l : loads) {
      if (l.verdict == Verdict::kAbove) hi = std::min(hi, l.rate);
    }
    const TestLoad* best = nullptr;
    for (const auto& l : loads) {
      if (l.verdict == Verdict::kBelow && l.rate < hi && (best == nullptr || l.rate > best->rate)) best = &l;
    }
    if (best == nullptr) return stop(SearchStatus::kNotFound, "no load below saturation");
    result_.status = SearchStatus::kFound;
    result_.peak_rate = best->rate;
    result_.response = best->ci;
    set_interval(true);
    return result_;
  }

  // Step 5: the runlength of a new load (the plan's, a retry's, the policy's or runlength_s).
  void plan_runlength(TestLoad& load, const std::optional<double>& retry_runlength) {
    if (plan_) {
      load.runlength_s = plan_->runlength_s;
    } else if (retry_runlength) {
      load.runlength_s = *retry_runlength;
    } else if (runlength_ != nullptr) {
      RunPlan rp = runlength_->plan(load.rate, result_.loads, p_, options_.target);
      load.runlength_s = rp.runlength_s;
      load.first_claim_look = rp.first_claim_look;
    } else {
      load.runlength_s = p_.runlength_s;
    }
  }

  // One trial, retried once: a dropped connection or a crashed generator is often transient.
  // nullopt after the second failure, whose message is in *why.
  std::optional<TrialResult> trial(const TestLoad& load, std::string* why) {
    try {
      return runner_.run(sample_, load.rate, load.runlength_s, trial_index_++);
    } catch (const Interrupted&) {
      throw;
    } catch (const Error& first) {
      if (observer_ != nullptr) observer_->on_trial_error(load.rate, first.what(), true);
    }
    try {
      return runner_.run(sample_, load.rate, load.runlength_s, trial_index_++);
    } catch (const Interrupted&) {
      throw;
    } catch (const Error& second) {
      *why = second.what();
      return std::nullopt;
    }
  }

  // Whether `load` has its verdict after its latest trial [003 Alg. 2 Steps 6-10]. A rough reading
  // (short r, meant to show a load far from the region) that overlaps the region after all starts
  // over at a runlength of at least runlength_s: a claim needs precise trials (the rough ones stay
  // counted in the cost and in the store).
  bool judged(TestLoad& load) {
    if (plan_) {
      if (static_cast<int>(load.trials.size()) < plan_->trials) return false;
      judge_load(load, options_);  // fills the CI and saturation
      load.verdict = load.saturated || load.ci.mean > p_.region.sat_ms ? Verdict::kAbove : Verdict::kBelow;
      return true;
    }
    if (static_cast<int>(load.trials.size()) < p_.min_trials) return false;
    load.verdict = judge_load(load, options_);
    if (load.verdict != Verdict::kInvalid) return true;
    if (runlength_ != nullptr && load.runlength_s < p_.runlength_s) {
      load.trials.clear();
      RunPlan rp = runlength_->plan(load.rate, result_.loads, p_, options_.target);
      load.runlength_s = std::max(p_.runlength_s, rp.runlength_s);
      load.first_claim_look = rp.first_claim_look;
      return false;
    }
    return static_cast<int>(load.trials.size()) >= p_.max_trials ||
           (p_.budget_s > 0 && result_.cost_s >= p_.budget_s);
  }

  // Measures the load at `rate` until its verdict; the search's result when that ends the search.
  std::optional<SearchResult> measure(double rate, const std::optional<double>& retry_runlength) {
    TestLoad load;
    load.rate = rate;
    plan_runlength(load, retry_runlength);
    const std::size_t index = result_.loads.size();
    do {
      std::string why;
      std::optional<TrialResult> t = trial(load, &why);
      if (!t) {
        load.verdict = Verdict::kInvalid;
        result_.loads.push_back(load);
        if (observer_ != nullptr) observer_->on_load(index, load);
        return stop(SearchStatus::kFailed, fmt::format("trial at {:.6g}/s failed twice: {}", load.rate, why));
      }
      ++result_.trials;
      result_.cost_s += t->cost_s;
      load.trials.push_back(*t);
      if (observer_ != nullptr) observer_->on_trial(index, *t);
    } while (!judged(load));
    result_.loads.push_back(load);
    if (retry_runlength) remeasured_.insert(index);
    if (observer_ != nullptr) observer_->on_load(index, load);
    return conclude(load);
  }

  // A claim ends the search, and so does a load left undecided (max_trials or the budget) or a
  // spent budget.
  std::optional<SearchResult> conclude(const TestLoad& load) {
    if (load.verdict == Verdict::kPeak) {
      result_.status = SearchStatus::kFound;
      result_.peak_rate = load.rate;
      result_.response = load.ci;
      set_interval(false);
      return result_;
    }
    if (load.verdict == Verdict::kInvalid && static_cast<int>(load.trials.size()) >= p_.max_trials) {
      return stop(SearchStatus::kBudget,
                  fmt::format("{} trials at {:.6g}/s did not reach accuracy {:g}% (max_trials)",
                              p_.max_trials, load.rate, options_.target.accuracy * 100));
    }
    if (load.verdict == Verdict::kInvalid || (p_.budget_s > 0 && result_.cost_s >= p_.budget_s))
      return stop(SearchStatus::kBudget, fmt::format("total cost reached budget_s = {:g}", p_.budget_s));
    return std::nullopt;
  }

  const Sample& sample_;
  const SearchOptions& options_;
  const PeakConfig& p_;
  LoadPicker& picker_;
  TrialRunner& runner_;
  SearchObserver* observer_;
  RunlengthPolicy* runlength_;
  const std::optional<FixedPlan> plan_;
  SearchResult result_;
  std::uint64_t trial_index_ = 0;
  std::set<std::size_t> retried_;       // loads measured again at a longer runlength
  std::set<std::size_t> superseded_;    // of those, loads whose new measurement replaces them
  std::vector<TestLoad> active_;        // active_loads() when some load is superseded
  std::set<std::size_t> remeasured_;    // loads that are a retry's measurement
  std::optional<std::size_t> confirm_;  // a cliff's load above, to measure again
  bool confirmed_ = false;              // confirm_cliff() measured it (the loop goes round again)
  int max_loads_ = 0;
};

}  // namespace

SearchResult run_search(const Sample& sample, const SearchOptions& options, LoadPicker& picker,
                        TrialRunner& runner, SearchObserver* observer, RunlengthPolicy* runlength) {
  return SearchRun(sample, options, picker, runner, observer, runlength).run();
}

}  // namespace wb
