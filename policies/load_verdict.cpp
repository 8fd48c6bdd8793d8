// Judging one load of the peak search [003 Alg. 2 Steps 6-10]: whether a trial saturated, the looks
// at which a load may claim, its verdict (with futility stopping), and the λ* interval the judged
// loads give (docs/decisions.md#peak-interval). The search loop that uses them is search.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/stats.hpp"
#include "policies/curve_fit.hpp"
#include "policies/search.hpp"

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

}  // namespace wb
