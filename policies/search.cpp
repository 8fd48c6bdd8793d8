#include "policies/search.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

namespace {

bool trial_saturated(const TrialResult& t, const PeakConfig& p) {
  if (t.sent == 0) return true;
  double sent = static_cast<double>(t.sent);
  return static_cast<double>(t.completed) < p.min_throughput_ratio * sent ||
         static_cast<double>(t.errors) > p.max_error_ratio * sent;
}

// The response metric the region is defined on: the mean, or the P_sat percentile [003 §3.3].
double trial_metric(const TrialResult& t, const PeakConfig& p) {
  if (!p.percentile) return t.mean_ms;
  double q = *p.percentile;
  if (q <= 0.50) return t.p50_ms;
  if (q <= 0.90) return t.p90_ms;
  if (q <= 0.95) return t.p95_ms;
  return t.p99_ms;
}

}  // namespace

Verdict judge_load(LoadResult& load, const SearchOptions& options, int look) {
  const PeakConfig& p = options.peak;
  std::vector<double> xs;
  load.saturated = false;
  for (const auto& t : load.trials) {
    xs.push_back(trial_metric(t, p));
    load.saturated = load.saturated || trial_saturated(t, p);
  }
  // Checking the CI after every added trial is optional stopping. The overlap test uses the
  // target confidence c as [003 Alg. 2] does; the accuracy test that ends the search spends
  // the error rate 1-c over the looks with a Bonferroni-style series (see README, "Statistics").
  (void)look;
  load.ci = mean_interval(xs, options.target.confidence);
  double sat = p.percentile ? p.l_sat_ms : p.r_sat_ms;
  double lo = sat * (1 - p.width), hi = sat * (1 + p.width);
  if (load.saturated || load.ci.low > hi) return Verdict::kAbove;
  if (load.ci.high < lo) return Verdict::kBelow;
  if (load.ci.accuracy() >= options.target.accuracy) return Verdict::kPeak;
  return Verdict::kInvalid;  // overlap without the accuracy yet: more trials
}

SearchResult run_search(const Sample& sample, const SearchOptions& options, LoadPicker& picker,
                        TrialRunner& runner, SearchObserver* observer) {
  const PeakConfig& p = options.peak;
  SearchResult result;
  std::uint64_t trial_index = 0;

  auto stop = [&](SearchStatus s, std::string why) {
    result.status = s;
    result.message = std::move(why);
    return result;
  };

  for (;;) {
    if (static_cast<int>(result.loads.size()) >= p.max_loads) {
      return stop(SearchStatus::kNotFound, fmt::format("no peak within max_loads = {} test loads", p.max_loads));
    }
    std::optional<double> rate = picker.next(result.loads);
    if (!rate) {
      return stop(SearchStatus::kNotFound,
                  "the load bracket collapsed without a load whose response time falls in the peak-rate region");
    }
    LoadResult load;
    load.rate = *rate;
    load.runlength_s = p.runlength_s;
    std::size_t index = result.loads.size();
    int look = 0;
    for (;;) {
      TrialResult t;
      try {
        t = runner.run(sample, load.rate, load.runlength_s, trial_index++);
      } catch (const Interrupted&) {
        throw;
      } catch (const Error& first) {
        try {  // one retry: a dropped connection or a crashed generator is often transient
          t = runner.run(sample, load.rate, load.runlength_s, trial_index++);
        } catch (const Interrupted&) {
          throw;
        } catch (const Error& second) {
          load.verdict = Verdict::kInvalid;
          result.loads.push_back(load);
          if (observer != nullptr) observer->on_load(index, load);
          return stop(SearchStatus::kFailed, fmt::format("trial at {:.6g}/s failed twice: {}", load.rate, second.what()));
        }
      }
      ++result.trials;
      result.cost_s += t.cost_s;
      load.trials.push_back(t);
      if (observer != nullptr) observer->on_trial(index, t);
      if (static_cast<int>(load.trials.size()) < p.min_trials) continue;
      load.verdict = judge_load(load, options, ++look);
      if (load.verdict != Verdict::kInvalid) break;
      if (static_cast<int>(load.trials.size()) >= p.max_trials) break;
      if (p.budget_s > 0 && result.cost_s >= p.budget_s) break;
    }
    result.loads.push_back(load);
    if (observer != nullptr) observer->on_load(index, load);
    if (load.verdict == Verdict::kPeak) {
      result.status = SearchStatus::kFound;
      result.peak_rate = load.rate;
      result.response = load.ci;
      return result;
    }
    if (load.verdict == Verdict::kInvalid) {
      if (static_cast<int>(load.trials.size()) >= p.max_trials) {
        return stop(SearchStatus::kBudget,
                    fmt::format("{} trials at {:.6g}/s did not reach accuracy {:g}% (max_trials)", p.max_trials,
                                load.rate, options.target.accuracy * 100));
      }
      return stop(SearchStatus::kBudget, fmt::format("total cost reached budget_s = {:g}", p.budget_s));
    }
    if (p.budget_s > 0 && result.cost_s >= p.budget_s) {
      return stop(SearchStatus::kBudget, fmt::format("total cost reached budget_s = {:g}", p.budget_s));
    }
  }
}

}  // namespace wb
