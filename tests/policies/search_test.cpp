#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "core/stats.hpp"
#include "policies/runlength.hpp"
#include "policies/search.hpp"

using namespace wb;

namespace {

// A scripted testbed for logic tests: trial i at rate λ returns response(λ, i).
class ScriptedRunner final : public TrialRunner {
 public:
  std::function<double(double, std::uint64_t)> response;
  std::function<bool(double)> saturated = [](double) { return false; };
  int failures_left = 0;
  int calls = 0;
  TrialResult run(const Sample&, double rate, double runlength_s, std::uint64_t i) override {
    ++calls;
    if (failures_left > 0) {
      --failures_left;
      throw Error("generator host dropped the connection");
    }
    TrialResult t;
    t.offered_rate = rate;
    t.runlength_s = runlength_s;
    t.sent = 1000;
    t.completed = saturated(rate) ? 900 : 1000;
    t.achieved_rate = saturated(rate) ? 0.9 * rate : rate;
    t.mean_ms = response(rate, i);
    t.cost_s = runlength_s + 10;
    return t;
  }
};

SearchOptions options() {
  SearchOptions o;
  o.peak.region = PeakRegion::mean(40, 0.1);
  o.peak.runlength_s = 60;
  o.target = Target::parse("95/90");
  return o;
}

// R = 10 ms / (1 - λ/200), with ±1% alternating noise: λ* = 150/s; region [144.4, 154.5].
double curve(double rate, std::uint64_t i) {
  double r = rate < 200 ? 10 / (1 - rate / 200) : 1e6;
  return r * (i % 2 == 0 ? 1.01 : 0.99);
}

// A binsearch from 50/s on `r` with at most 6 trials per load (looks at 3 and 5) and 4 loads that
// claims nothing: its result, with the 4 loads.
SearchResult unclaimed_four_loads(ScriptedRunner& r) {
  auto o = options();
  o.peak.max_trials = 6;
  o.peak.max_loads = 4;
  REQUIRE(accuracy_looks(o.peak) == std::vector<int>{3, 5});
  auto picker = make_picker("binsearch", o.peak, 50);
  auto res = run_search(Sample(), o, *picker, r);
  CHECK(res.status == SearchStatus::kNotFound);
  REQUIRE(res.loads.size() == 4);
  return res;
}

}  // namespace

TEST_CASE("a search on a smooth curve ends in the peak-rate region") {
  ScriptedRunner r;
  r.response = curve;
  auto o = options();
  auto picker = make_picker("binsearch", o.peak, 50);
  auto res = run_search(Sample(), o, *picker, r);
  REQUIRE(res.status == SearchStatus::kFound);
  CHECK(res.peak_rate > 144.4);
  CHECK(res.peak_rate < 154.5);
  CHECK(res.response.low <= 44);
  CHECK(res.response.high >= 36);
  CHECK(res.response.accuracy() >= 0.9);
  CHECK(res.loads.back().verdict == Verdict::kPeak);
  for (std::size_t i = 0; i + 1 < res.loads.size(); ++i) {
    CHECK(res.loads[i].trials.size() >= 2);
    CHECK(res.loads[i].verdict != Verdict::kPeak);
  }
  CHECK(res.trials == r.calls);
  CHECK(res.cost_s == Approx(70.0 * r.calls));
}

TEST_CASE("a saturated trial makes its load 'above' whatever its response time") {
  ScriptedRunner r;
  r.response = [](double, std::uint64_t) { return 5.0; };  // response never reaches R_sat ...
  r.saturated = [](double rate) { return rate >= 400; };   // ... but throughput falls short
  auto o = options();
  auto picker = make_picker("binsearch", o.peak, 50);
  auto res = run_search(Sample(), o, *picker, r);
  REQUIRE(res.loads.size() >= 4);
  CHECK(res.loads[3].rate == 400);
  CHECK(res.loads[3].saturated);
  CHECK(res.loads[3].verdict == Verdict::kAbove);
  // From 5 ms straight to saturation: a cliff, whose knee lies within (1 - a)/4 below 400/s.
  CHECK(res.status == SearchStatus::kCliff);
  CHECK(res.peak_rate < 400);
  CHECK(res.peak_rate >= 400 / (1 + 0.025));
  CHECK(res.peak_low == res.peak_rate);
  CHECK(res.peak_high >= 400);
  CHECK(res.peak_high - res.peak_low <= 0.025 * res.peak_low);
}

namespace {

// A binsearch from 50/s on a response of 2 ms up to 1000/s and `above_ms` beyond (±2%).
SearchResult step_search(double above_ms) {
  ScriptedRunner r;
  r.response = [above_ms](double rate, std::uint64_t i) {
    return (rate <= 1000 ? 2.0 : above_ms) * (i % 2 ? 1.02 : 0.98);
  };
  auto o = options();
  o.peak.max_loads = 40;
  auto picker = make_picker("binsearch", o.peak, 50);
  return run_search(Sample(), o, *picker, r);
}

}  // namespace

TEST_CASE("a jump from below the region to far above it ends the search at the knee") {
  // 150 ms: over twice the region's 44 ms edge, without saturating.
  SearchResult res = step_search(150);
  REQUIRE(res.status == SearchStatus::kCliff);
  CHECK(res.peak_rate <= 1000);
  CHECK(res.peak_rate >= 1000 / (1 + 0.025));
  CHECK(res.peak_high > 1000);
  CHECK(res.peak_high <= res.peak_rate * (1 + 0.025));
  CHECK(res.response.high < 36);
  CHECK(res.message.find("knee") != std::string::npos);
  // No load was measured inside the jump's bracket after the bracket was narrow enough.
  CHECK(res.loads.size() < 20);
}

TEST_CASE("a step just above the region is bisected until the bracket collapses, then ends at the knee") {
  // 60 ms: above the region (44 ms) but not twice its edge, so no early stop: the search bisects
  // toward the region until its bracket collapses, and only then reports the knee.
  SearchResult far = step_search(150);
  SearchResult res = step_search(60);
  REQUIRE(res.status == SearchStatus::kCliff);
  CHECK(res.peak_rate <= 1000);
  CHECK(res.peak_high > 1000);
  CHECK(res.peak_high - res.peak_rate <= 1e-3 * res.peak_high);
  CHECK(res.loads.size() > far.loads.size());
}

TEST_CASE("response intervals of positive, skewed trials stay above zero") {
  // One trial far above the others, as at a load just past a cliff: a Student-t interval reaches
  // below zero here ([-12.6, 27.8] ms was seen on nginx); the log-normal one cannot.
  std::vector<double> xs{0.4, 0.5, 22.5};
  MeanInterval t = mean_interval(xs, 0.9);
  REQUIRE(t.low < 0);
  MeanInterval ci = response_interval(xs, 0.9);
  CHECK(ci.mean == Approx(t.mean));
  CHECK(ci.low > 0);
  CHECK(ci.high > ci.mean);
  CHECK(ci.low < 0.5);
  // Nearly symmetric data: the two intervals agree closely.
  std::vector<double> even{39, 40, 41, 40.5, 39.5};
  MeanInterval te = mean_interval(even, 0.95), ce = response_interval(even, 0.95);
  CHECK(ce.low == Approx(te.low).epsilon(1e-3));
  CHECK(ce.high == Approx(te.high).epsilon(1e-3));
  // A zero (no answer) rules the log scale out: the t interval, cut at zero.
  std::vector<double> zero{0, 0.5, 22.5};
  CHECK(response_interval(zero, 0.9).low == 0);
}

TEST_CASE("trial_saturated: errors, completions short of sends, or answers in the window short of λr") {
  PeakConfig p;  // min_throughput_ratio 0.99, max_error_ratio 0.01
  TrialResult t;
  t.offered_rate = 100;
  t.runlength_s = 60;  // λr = 6000, 5√(λr) = 387
  t.sent = t.completed = 6000;
  t.achieved_rate = 100;
  CHECK_FALSE(trial_saturated(t, p));
  t.achieved_rate = 95;  // 300 short: over 1% but within the arrivals' noise
  CHECK_FALSE(trial_saturated(t, p));
  t.achieved_rate = 93;  // 420 short: over both
  CHECK(trial_saturated(t, p));
  t.offered_rate = 10000;  // λr = 600000: 5√(λr) = 3873 is under 1% (6000)
  t.sent = t.completed = 600000;
  t.achieved_rate = 9920;  // 4800 short: more than the noise, less than 1%
  CHECK_FALSE(trial_saturated(t, p));
  t.achieved_rate = 9890;  // 6600 short
  CHECK(trial_saturated(t, p));
  t.achieved_rate = 10000;
  t.completed = 593000;  // completions short of sends
  CHECK(trial_saturated(t, p));
  t.completed = 600000;
  t.errors = 6001;  // errors over 1% of sends
  CHECK(trial_saturated(t, p));
  t.errors = 0;
  t.sent = t.completed = 0;  // nothing sent
  CHECK(trial_saturated(t, p));
  TrialResult unknown;  // no offered rate known: only the counts judge
  unknown.sent = unknown.completed = 1000;
  CHECK_FALSE(trial_saturated(unknown, p));
}

TEST_CASE("with the paper's rule the trial cap at one load ends the search with status budget") {
  ScriptedRunner r;
  // Wildly noisy at every load: overlaps the region but never reaches 90% accuracy.
  r.response = [](double, std::uint64_t i) { return i % 2 == 0 ? 10.0 : 70.0; };
  auto o = options();
  o.peak.sequential = Sequential::kNone;
  o.peak.max_trials = 6;
  auto picker = make_picker("binsearch", o.peak, 50);
  auto res = run_search(Sample(), o, *picker, r);
  CHECK(res.status == SearchStatus::kBudget);
  CHECK(res.trials == 6);
  CHECK_THAT(res.message, Catch::Contains("max_trials"));
}

TEST_CASE("with scheduled looks a load whose mean is outside the band is decided at the first look") {
  ScriptedRunner r;
  // Trials alternate 10 and 70 ms (counted across loads): at three trials (the first look) a
  // load's mean is 30 or 50 ms, outside the region [36, 44], and its CI is far too wide to claim
  // anything or to exclude the region.
  r.response = [](double, std::uint64_t i) { return i % 2 == 0 ? 10.0 : 70.0; };
  auto res = unclaimed_four_loads(r);
  for (const auto& l : res.loads) {
    CHECK(l.trials.size() == 3);
    CHECK(l.verdict == (l.ci.mean < 40 ? Verdict::kBelow : Verdict::kAbove));
  }
}

TEST_CASE(
    "with scheduled looks a load whose mean stays in the band is decided by its mean at the last look") {
  ScriptedRunner r;
  // Every load gets 10, 70, 40, 10, 10 ms (five trials per load, counted across loads): at the
  // first look the mean is 40 ms, inside the region [36, 44] but far from accurate, so the load
  // goes on to the last look, where its mean of 28 ms says below.
  r.response = [](double, std::uint64_t i) {
    const double cycle[] = {10.0, 70.0, 40.0, 10.0, 10.0};
    return cycle[i % 5];
  };
  auto res = unclaimed_four_loads(r);
  for (const auto& l : res.loads) {
    CHECK(l.trials.size() == 5);
    CHECK(l.ci.mean == Approx(28.0));
    CHECK(l.verdict == Verdict::kBelow);
  }
}

TEST_CASE("a load in the band whose claim is futile is decided by its mean from the eighth trial") {
  auto o = options();
  o.peak.max_trials = 30;
  REQUIRE(accuracy_looks(o.peak) == std::vector<int>{3, 5, 8, 12, 18, 27});
  // Trials alternating mean ± d ms (an odd count ends on the mean itself, so the mean is exact).
  auto load_with = [](int trials, double mean, double d) {
    TestLoad l;
    l.rate = 100;
    l.runlength_s = 60;
    for (int i = 0; i < trials; ++i) {
      TrialResult t;
      t.sent = t.completed = 1000;
      t.mean_ms = i == trials - 1 && trials % 2 == 1 ? mean : mean + (i % 2 == 0 ? -d : d);
      l.trials.push_back(t);
    }
    return l;
  };
  // Near the lower edge of the band [36, 44]: a mean of 37 ms with a spread of 5.3 ms. Even if the
  // mean at the 27th trial moved 1.645 of its spread toward R_sat (to 38.4 ms), the TOST interval
  // there (±2.6 ms) would not fit: decided below at the eighth trial.
  TestLoad edge = load_with(8, 37, 5);
  CHECK(judge_load(edge, o) == Verdict::kBelow);
  // Not before: at five trials the spread is too poorly known to give the load up.
  TestLoad early = load_with(5, 37, 5);
  CHECK(judge_load(early, o) == Verdict::kInvalid);
  // The same mean with a spread of 3.2 ms could still be claimed by the last look: it goes on.
  TestLoad hopeful = load_with(8, 37, 3);
  CHECK(judge_load(hopeful, o) == Verdict::kInvalid);
  // A spread that keeps the CI from ±10% even at R_sat and 27 trials (12.8 ms) is the runlength's
  // doing, not the load's place: such a load runs on to the last look as before, at R_sat and near
  // the edge alike.
  TestLoad wide = load_with(8, 40, 12);
  CHECK(judge_load(wide, o) == Verdict::kInvalid);
  TestLoad wide_edge = load_with(8, 37, 12);
  CHECK(judge_load(wide_edge, o) == Verdict::kInvalid);
}

TEST_CASE("an accurate CI that only overlaps the peak-rate region is not claimed") {
  ScriptedRunner r;
  // Every load but 100/s is far below R_sat; at 100/s the trials scatter ±1 ms around 34.5 ms:
  // accurate to 97%, overlapping the region [36, 44] at three trials, but its mean is below it.
  r.response = [](double rate, std::uint64_t i) {
    if (rate < 99) return 10.0;
    if (rate > 101) return 500.0;
    return 34.5 + (i % 2 == 0 ? 1.0 : -1.0);
  };
  auto o = options();
  o.peak.max_loads = 6;
  auto picker = make_picker("binsearch", o.peak, 50);
  auto res = run_search(Sample(), o, *picker, r);
  CHECK(res.status != SearchStatus::kFound);
  for (const auto& l : res.loads) CHECK(l.verdict != Verdict::kPeak);
}

TEST_CASE("the total cost cap ends the search with status budget") {
  ScriptedRunner r;
  r.response = curve;
  auto o = options();
  o.peak.budget_s = 300;  // 5 trials of 70 s
  auto picker = make_picker("binsearch", o.peak, 50);
  auto res = run_search(Sample(), o, *picker, r);
  CHECK(res.status == SearchStatus::kBudget);
  CHECK(res.cost_s >= 300);
  CHECK(res.cost_s < 300 + 70 * 2);
}

TEST_CASE("a failed trial is retried once — two failures in a row fail the search") {
  auto o = options();
  ScriptedRunner once;
  once.response = curve;
  once.failures_left = 1;
  auto p1 = make_picker("binsearch", o.peak, 50);
  CHECK(run_search(Sample(), o, *p1, once).status == SearchStatus::kFound);

  ScriptedRunner twice;
  twice.response = curve;
  twice.failures_left = 2;
  auto p2 = make_picker("binsearch", o.peak, 50);
  auto res = run_search(Sample(), o, *p2, twice);
  CHECK(res.status == SearchStatus::kFailed);
  CHECK_THAT(res.message, Catch::Contains("dropped the connection"));
}

TEST_CASE("an interrupt is not retried") {
  struct Stop final : TrialRunner {
    TrialResult run(const Sample&, double, double, std::uint64_t) override { throw Interrupted(); }
  } r;
  auto o = options();
  auto p = make_picker("binsearch", o.peak, 50);
  CHECK_THROWS_AS(run_search(Sample(), o, *p, r), Interrupted);
}

TEST_CASE("a bracket that collapses without a claim measures its best load again at a longer runlength") {
  // R = 10 ms / (1 − λ/200) (λ* = 150/s, region [144.4, 154.5]), each trial's mean drawn with a
  // spread of 22% of R at r = 60 s, shrinking as 1/sqrt(r). At 60 s a load exactly at R_sat ends
  // its last look (27 trials) with a CI of about ±4.5 ms, as wide as the band [36, 44]: a claim at
  // runlength_s needs luck, and a search usually has to measure a load again with longer trials.
  class NoisyRunner final : public TrialRunner {
   public:
    explicit NoisyRunner(std::uint64_t seed) : seed_(seed) {}
    std::vector<double> runlengths;
    TrialResult run(const Sample&, double rate, double runlength_s, std::uint64_t i) override {
      runlengths.push_back(runlength_s);
      std::mt19937_64 rng(i * 7919 + seed_);
      std::normal_distribution<double> z(0, 1);
      double r = rate < 200 ? 10 / (1 - rate / 200) : 1e6;
      TrialResult t;
      t.offered_rate = rate;
      t.runlength_s = runlength_s;
      t.sent = 1000;
      t.completed = rate < 200 ? 1000 : 500;
      t.achieved_rate = rate < 200 ? rate : 0.5 * rate;
      t.mean_ms = std::max(0.1, r * (1 + 0.22 * std::sqrt(60 / runlength_s) * z(rng)));
      t.cost_s = runlength_s + 10;
      return t;
    }

   private:
    std::uint64_t seed_;
  };
  // 40 seeds: over 300 seeds binsearch found 219 peaks and model-safe 223 (rescued 167 and 175-185),
  // about 74%, so five seeds, as this test had, pass "4 of 5" only with probability 0.6 whatever
  // the picker; a change to the fit that left the rate as it was failed it. At 74% the found count
  // of 40 is 29.6 ± 2.8 and the rescued count about 23 ± 3: the bounds below are two standard
  // deviations under them, and a picker that found only half its peaks would fail.
  constexpr std::uint64_t kSeeds = 40;
  for (const char* policy : {"binsearch", "model-safe"}) {
    int found = 0, rescued = 0, in_region = 0;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      INFO(policy << " seed " << seed);
      SearchOptions o = options();
      o.peak.max_loads = 60;
      NoisyRunner runner(seed);
      auto picker = make_picker(policy, o.peak, 50);
      SearchResult r = run_search(Sample{}, o, *picker, runner);
      INFO(r.message);
      for (double rl : runner.runlengths) CHECK(rl <= o.peak.max_runlength_s);
      CHECK(static_cast<int>(r.loads.size()) <= o.peak.max_loads);
      // Second measurements are bounded: at most three loads at a longer runlength than the rest.
      int longer = 0;
      for (const auto& l : r.loads) longer += l.runlength_s > o.peak.runlength_s;
      CHECK(longer <= 3);
      if (r.status != SearchStatus::kFound) continue;
      ++found;
      in_region += r.peak_rate >= 144.4 && r.peak_rate <= 154.5;
      const TestLoad& claimed = r.loads.back();
      CHECK(claimed.verdict == Verdict::kPeak);
      CHECK(claimed.runlength_s <= o.peak.max_runlength_s);
      // Rescued: claimed from trials twice as long as an earlier load at the same rate that had
      // been judged by its mean (CI overlapping the region [36, 44]).
      for (std::size_t i = 0; i + 1 < r.loads.size(); ++i) {
        const TestLoad& l = r.loads[i];
        if (l.rate == claimed.rate && l.runlength_s * 2 == claimed.runlength_s &&
            l.verdict != Verdict::kPeak && l.ci.low <= 44 && l.ci.high >= 36) {
          ++rescued;
          break;
        }
      }
    }
    INFO(policy);
    // A search misled early (a load inside the region judged above by a noisy mean) keeps its
    // wrong bracket: the retry measures a load again, it does not reopen the bracket.
    CHECK(found >= 24);
    // Each claim is made at 95% confidence, so one of ~30 may lie just outside the region (binsearch
    // claimed 143.75/s on seed 28). At 95% coverage five or more of 29 miss with probability 2%;
    // a picker whose claims missed often would.
    CHECK(in_region >= 0.85 * found);
    CHECK(rescued >= 16);  // without the second measurement these searches end not found
  }
}

TEST_CASE("a load claims only at the looks from its first claim look, each at 1-(1-c)/K for those K looks") {
  auto o = options();
  o.peak.max_trials = 30;
  const std::vector<int> looks = accuracy_looks(o.peak);
  REQUIRE(looks == std::vector<int>{3, 5, 8, 12, 18, 27});
  CHECK(claim_looks_from(looks, 0) == looks);
  CHECK(claim_looks_from(looks, 8) == std::vector<int>{8, 12, 18, 27});
  CHECK(claim_looks_from(looks, 9) == std::vector<int>{12, 18, 27});
  CHECK(claim_looks_from(looks, 40) == std::vector<int>{27});  // none left: the last look

  // Trials 40 ± 0.2 ms: accurate and inside the region from the first look.
  auto load_with = [](int trials, int first_claim_look) {
    TestLoad l;
    l.rate = 100;
    l.runlength_s = 60;
    l.first_claim_look = first_claim_look;
    for (int i = 0; i < trials; ++i) {
      TrialResult t;
      t.sent = t.completed = 1000;
      t.mean_ms = 40 + (i % 2 == 0 ? 0.2 : -0.2);
      l.trials.push_back(t);
    }
    return l;
  };
  TestLoad all = load_with(3, 0);
  CHECK(judge_load(all, o) == Verdict::kPeak);
  // Claims from the third look on: at three trials the load goes on (a look, but not a claim one)...
  TestLoad late = load_with(3, 8);
  CHECK(judge_load(late, o) == Verdict::kInvalid);
  late = load_with(5, 8);
  CHECK(judge_load(late, o) == Verdict::kInvalid);
  // ... and is claimed at eight, with the CI at 1-(1-c)/4 for the four claim looks left.
  late = load_with(8, 8);
  REQUIRE(judge_load(late, o) == Verdict::kPeak);
  std::vector<double> xs;
  for (const auto& t : late.trials) xs.push_back(t.mean_ms);
  MeanInterval expected = response_interval(xs, 1 - 0.05 / 4);
  CHECK(late.ci.low == Approx(expected.low));
  CHECK(late.ci.high == Approx(expected.high));
  // Before the claim looks, a mean outside the band still ends the load at a look (no claim).
  TestLoad off = load_with(3, 8);
  for (auto& t : off.trials) t.mean_ms += 6;  // 46 ms
  CHECK(judge_load(off, o) == Verdict::kAbove);
}

TEST_CASE("run_search gives each load the first claim look its runlength policy planned") {
  // A policy that plans every load for claims from the third look (8 trials).
  class LateClaims final : public RunlengthPolicy {
   public:
    RunPlan plan(double, const std::vector<TestLoad>&, const PeakConfig& peak, const Target&) override {
      return {peak.runlength_s, 8};
    }
  };
  ScriptedRunner r;
  r.response = curve;  // ±1% noise: claimable at the first look, but claims start at eight
  auto o = options();
  o.peak.max_trials = 30;
  auto picker = make_picker("binsearch", o.peak, 150);
  LateClaims policy;
  auto res = run_search(Sample(), o, *picker, r, nullptr, &policy);
  REQUIRE(res.status == SearchStatus::kFound);
  for (const auto& l : res.loads) CHECK(l.first_claim_look == 8);
  CHECK(res.loads.back().trials.size() == 8);
}
