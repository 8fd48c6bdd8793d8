#include "policies/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "policies/curve_fit.hpp"
#include "policies/runlength.hpp"

namespace wb {

bool trial_saturated(const TrialResult& t, const PeakConfig& p) {
  if (t.sent == 0) return true;
  double sent = static_cast<double>(t.sent);
  if (static_cast<double>(t.completed) < p.min_throughput_ratio * sent ||
      static_cast<double>(t.errors) > p.max_error_ratio * sent)
    return true;
  // A generator that waits for every answer (wbload) keeps completed/sent at 1 when the SUT falls
  // behind, but the answers inside the window fall short of λr; short by more than 5√(λr) (the Poisson
  // sd) and by 1 − min_throughput_ratio is not noise (docs/decisions.md#saturation-shortfall).
  const double offered = t.offered_rate * t.runlength_s;
  const double achieved = t.achieved_rate * t.runlength_s;
  return offered > 0 && achieved < p.min_throughput_ratio * offered &&
         offered - achieved > 5 * std::sqrt(offered);
}

namespace {

// Futility (stochastic curtailment, Lan, Simon & Halperin 1982): an in-band load whose claim would
// pass by the last look with probability under 5% is decided by its mean now. It claims nothing, so
// the claim's confidence is untouched (docs/decisions.md#futility-stopping).
constexpr int kFutilityMinTrials = 8;
constexpr double kFutilityZ = 1.645;

bool claim_futile(const std::vector<double>& xs, int last, std::size_t claim_look_count,
                  const SearchOptions& options) {
  const int n = static_cast<int>(xs.size());
  if (n < kFutilityMinTrials || n >= last) return false;
  const PeakRegion& region = options.peak.region;
  const double c = options.target.confidence, a = options.target.accuracy;
  const double sat = region.sat_ms;
  const double band = region.band(a);
  const double band_lo = sat * (1 - band), band_hi = sat * (1 + band);
  const double m = mean_of(xs), sd = sample_stddev(xs), k = static_cast<double>(claim_look_count);
  const double se_last = sd / std::sqrt(static_cast<double>(last));
  const double tost = t_quantile(1.0 - 2.0 * (1.0 - c) / k, last - 1) * se_last;
  const double accurate = t_quantile(1.0 - (1.0 - c) / k, last - 1) * se_last;
  // A spread too wide for a claim even at R_sat is the runlength's fault: such a load runs to the last
  // look, whose mean picks the load a collapsed bracket retries (docs/decisions.md#futility-stopping).
  if (tost > sat * band || accurate > (1 - a) * sat) return false;
  // The last look's mean, moved from the current one toward R_sat by z of its spread.
  const double drift = kFutilityZ * sd * std::sqrt(static_cast<double>(last - n)) / last;
  const double best = m < sat ? std::min(sat, m + drift) : std::max(sat, m - drift);
  const double room = std::min(best - band_lo, band_hi - best);
  return tost > room || accurate > (1 - a) * best;
}

}  // namespace

std::vector<int> accuracy_looks(const PeakConfig& p) {
  std::vector<int> looks;
  for (int n = p.peak_min_trials; n <= p.max_trials;
       n = std::max(n + 1, static_cast<int>(std::ceil(n * p.look_growth - 1e-9)))) {
    looks.push_back(n);
  }
  return looks;
}

std::vector<int> claim_looks_from(const std::vector<int>& looks, int first_claim_look) {
  std::vector<int> out;
  for (int n : looks) {
    if (n >= first_claim_look) out.push_back(n);
  }
  if (out.empty()) out.push_back(looks.back());
  return out;
}

Verdict judge_load(TestLoad& load, const SearchOptions& options) {
  const PeakConfig& p = options.peak;
  const double c = options.target.confidence;
  std::vector<double> xs;
  load.saturated = false;
  for (const auto& t : load.trials) {
    xs.push_back(p.region.value(t));
    load.saturated = load.saturated || trial_saturated(t, p);
  }
  // Steps 8-10: the CI at confidence c decides whether the search moves on.
  load.ci = response_interval(xs, c);
  const double sat = p.region.sat_ms;
  if (load.saturated || load.ci.low > p.region.high_ms()) return Verdict::kAbove;
  if (load.ci.high < p.region.low_ms()) return Verdict::kBelow;

  // The CI overlaps the region: is it accurate enough to claim the peak?
  if (p.sequential == Sequential::kNone) {  // [003 Alg. 2]: look after every trial at confidence c
    return load.ci.accuracy() >= options.target.accuracy ? Verdict::kPeak : Verdict::kInvalid;
  }
  // Stopping when the CI happens to be narrow is optional stopping and undercovers, so a claim is only
  // examined at looks fixed in advance, each at 1-(1-c)/K: by the union bound the reported CI misses
  // with probability at most 1-c (docs/decisions.md#claim-looks).
  std::vector<int> looks = accuracy_looks(p);
  int n = static_cast<int>(xs.size());
  if (std::find(looks.begin(), looks.end(), n) == looks.end()) return Verdict::kInvalid;
  // K counts only the claim looks from load.first_claim_look on, fixed before the load's first trial
  // (RunlengthPolicy::plan); earlier looks may still end the load as below or above, claiming nothing.
  std::vector<int> claim_looks = claim_looks_from(looks, load.first_claim_look);
  const bool claim_look_here = std::find(claim_looks.begin(), claim_looks.end(), n) != claim_looks.end();
  double ck = 1.0 - (1.0 - c) / static_cast<double>(claim_looks.size());
  MeanInterval claim = response_interval(xs, ck);
  // Unlike [003 Alg. 2], a claim also needs the TOST interval (confidence 1-2(1-c)/K) inside the band,
  // so a load whose true mean is outside is claimed with probability at most 1-c; a coarse target widens
  // the band to R_sat(1 ± (1 − a)) (docs/decisions.md#tost-claim).
  const double band = p.region.band(options.target.accuracy);
  const double band_lo = sat * (1 - band), band_hi = sat * (1 + band);
  const double inside_confidence = 1.0 - 2.0 * (1.0 - c) / static_cast<double>(claim_looks.size());
  MeanInterval inside = response_interval(xs, inside_confidence);
  if (claim_look_here && claim.accuracy() >= options.target.accuracy && inside.low >= band_lo &&
      inside.high <= band_hi) {
    load.ci = claim;
    return Verdict::kPeak;
  }
  // Not claimed: an in-band mean takes more trials up to the last look unless claim_futile; else the
  // mean says which side of the peak the load is on, and a wrong side costs loads, never a wrong claim
  // (docs/decisions.md#side-decisions).
  const int last = looks.back(), first = looks.front();
  bool mean_inside = inside.mean >= band_lo && inside.mean <= band_hi;
  if (n < last && (n < first || (mean_inside && !claim_futile(xs, last, claim_looks.size(), options))))
    return Verdict::kInvalid;
  return claim.mean < sat ? Verdict::kBelow : Verdict::kAbove;
}

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

// [lo, hi]: the lowest load above λ* whose CI lies wholly above `above_edge` (or that saturated),
// and the highest load below that whose CI lies wholly below `below_edge`; 0 and +infinity when
// no load gives that evidence.
std::pair<double, double> evidence_bracket(const SearchResult& result, double below_edge, double above_edge) {
  double lo = 0, hi = std::numeric_limits<double>::infinity();
  for (const auto& l : result.loads) {
    if (l.verdict == Verdict::kAbove && l.rate > result.peak_rate && (l.saturated || l.ci.low > above_edge))
      hi = std::min(hi, l.rate);
  }
  for (const auto& l : result.loads) {
    if (l.verdict == Verdict::kBelow && l.rate < hi && l.ci.high < below_edge) lo = std::max(lo, l.rate);
  }
  return {lo, hi};
}

}  // namespace

void set_peak_interval(SearchResult& result, const SearchOptions& options, bool fixed_plan) {
  const PeakRegion& region = options.peak.region;
  const double sat = region.sat_ms;
  if (fixed_plan) {
    // The strawman's λ* is the last load below R_sat, so its interval spans the loads whose CI lies
    // wholly below and wholly above R_sat (docs/decisions.md#peak-interval).
    const auto [below, above] = evidence_bracket(result, sat, sat);
    result.peak_low = std::min(below, result.peak_rate);
    result.peak_high = std::max(above, result.peak_rate);
    return;
  }
  // A bracket end needs evidence (a CI wholly outside the region, or saturation); loads judged by their
  // mean alone only steer the search (docs/decisions.md#peak-interval).
  const auto [lo, hi] = evidence_bracket(result, region.low_ms(), region.high_ms());
  result.peak_low = lo;
  result.peak_high = hi;
  // Through λ*'s CI [R_l, R_h] the fitted curve (slope b) reaches the region's edges no nearer than
  // λ* + (1/R_h − 1/E_low)/b and λ* + (1/R_l − 1/E_high)/b, b's own error aside. The shape is the
  // mean's: a percentile region keeps the evidence bracket alone.
  if (auto curve = fit_curve(result.loads, sat); curve && region.metric == ResponseMetric::kMean) {
    const double e_low = region.low_ms(), e_high = region.high_ms();
    const MeanInterval& ci = result.response;
    if (ci.high > 0) result.peak_low = std::max(lo, result.peak_rate + (1 / ci.high - 1 / e_low) / curve->b);
    if (ci.low > 0) result.peak_high = std::min(hi, result.peak_rate + (1 / ci.low - 1 / e_high) / curve->b);
  }
  result.peak_low = std::min(result.peak_low, result.peak_rate);
  result.peak_high = std::max(result.peak_high, result.peak_rate);
}

namespace {

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
    for (;;) {
      if (!plan_) {
        if (std::optional<SearchResult> knee = cliff(false)) return *knee;
      }
      if (static_cast<int>(result_.loads.size()) >= max_loads)
        return stop(SearchStatus::kNotFound,
                    fmt::format("no peak within max_loads = {} test loads", max_loads));
      std::optional<double> retry_runlength;
      std::optional<double> rate = picker_.next(result_.loads);
      if (!rate && !plan_) rate = retry_load(retry_runlength);
      if (!rate && plan_) return strawman_result();
      if (!rate) {
        if (std::optional<SearchResult> knee = cliff(true)) return *knee;
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
  // collapsed, a mean above the region will do (docs/decisions.md#cliffs).
  std::optional<SearchResult> cliff(bool collapsed) {
    const PeakRegion& region = p_.region;
    auto above = [&](const TestLoad& l) {
      return l.verdict == Verdict::kAbove &&
             (l.saturated || (collapsed ? l.ci.mean : l.ci.low) > region.high_ms());
    };
    const TestLoad* hi = nullptr;
    for (const auto& l : result_.loads) {
      if (above(l) && (hi == nullptr || l.rate < hi->rate)) hi = &l;
    }
    if (hi == nullptr || (!collapsed && !hi->saturated && !(hi->ci.low > kCliffJump * region.high_ms())))
      return std::nullopt;
    const TestLoad* lo = nullptr;
    for (const auto& l : result_.loads) {
      if (l.verdict == Verdict::kBelow && l.rate <= hi->rate && (lo == nullptr || l.rate > lo->rate)) lo = &l;
    }
    const double resolution = kCliffResolution * (1 - options_.target.accuracy);
    if (lo == nullptr || !(lo->ci.mean < region.low_ms()) || hi->rate - lo->rate > resolution * lo->rate)
      return std::nullopt;
    for (const auto& l : result_.loads) {
      const bool inside = l.ci.mean >= region.low_ms() && l.ci.mean <= region.high_ms();
      if (l.rate > lo->rate && l.rate < hi->rate && l.trials.size() >= 2 && inside) return std::nullopt;
    }
    result_.status = SearchStatus::kCliff;
    result_.peak_rate = lo->rate;
    result_.response = lo->ci;
    result_.peak_low = lo->rate;
    result_.peak_high = hi->rate;
    // Both sides seen at one rate: the interval reaches to the nearest loads around it, if close.
    if (lo->rate == hi->rate) {
      double nearest_below = 0, nearest_above = std::numeric_limits<double>::infinity();
      for (const auto& l : result_.loads) {
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

  // The bracket collapsed without a claim: a load judged by its mean may have been the peak, too
  // noisy to show it, so the one nearest R_sat runs again at twice its runlength, at most
  // kMaxRetries times (docs/decisions.md#collapsed-bracket-retry).
  std::optional<double> retry_load(std::optional<double>& retry_runlength) {
    if (static_cast<int>(retried_.size()) >= kMaxRetries) return std::nullopt;
    const double sat = p_.region.sat_ms;
    const TestLoad* best = nullptr;
    for (std::size_t i = 0; i < result_.loads.size(); ++i) {
      const TestLoad& l = result_.loads[i];
      if (retried_.count(i) != 0 || !judged_by_mean(l, options_) || l.runlength_s * 2 > p_.max_runlength_s)
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
    double hi = std::numeric_limits<double>::infinity();
    for (const auto& l : result_.loads) {
      if (l.verdict == Verdict::kAbove) hi = std::min(hi, l.rate);
    }
    const TestLoad* best = nullptr;
    for (const auto& l : result_.loads) {
      if (l.verdict == Verdict::kBelow && l.rate < hi && (best == nullptr || l.rate > best->rate)) best = &l;
    }
    if (best == nullptr) return stop(SearchStatus::kNotFound, "no load below saturation");
    result_.status = SearchStatus::kFound;
    result_.peak_rate = best->rate;
    result_.response = best->ci;
    set_peak_interval(result_, options_, true);
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
      set_peak_interval(result_, options_, false);
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
  std::set<std::size_t> retried_;  // loads measured again at a longer runlength
};

}  // namespace

SearchResult run_search(const Sample& sample, const SearchOptions& options, LoadPicker& picker,
                        TrialRunner& runner, SearchObserver* observer, RunlengthPolicy* runlength) {
  return SearchRun(sample, options, picker, runner, observer, runlength).run();
}

}  // namespace wb
