#include "tour.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "experiment/expectation.hpp"
#include "harness/sim/random.hpp"
#include "harness/sim/sim_testbed.hpp"
#include "policies/runlength.hpp"

namespace wb {

std::vector<Sample> all_samples(const Config& c) {
  std::vector<Sample> out;
  for (const auto& d : c.factor("disks")->levels) {
    for (const auto& t : c.factor("threads")->levels) out.push_back(c.sample("disks=" + d + ",threads=" + t));
  }
  return out;
}

std::vector<Sample> nearest_neighbour_tour(std::vector<Sample> rest, const std::vector<Factor>& factors) {
  std::vector<Sample> tour{rest.front()};
  rest.erase(rest.begin());
  while (!rest.empty()) {
    auto best = rest.begin();
    double bd = 1e300;
    for (auto it = rest.begin(); it != rest.end(); ++it) {
      double d = sample_distance(tour.back(), *it, factors);
      if (d < bd) bd = d, best = it;
    }
    tour.push_back(*best);
    rest.erase(best);
  }
  return tour;
}

std::map<std::string, sim::Truth> load_truths(const Config& c, const std::vector<Sample>& samples) {
  std::ifstream in(c.file());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string hash = fmt::format("{:016x}", sim::hash_text(ss.str() + sim::truth_key(c)));
  std::string path = std::string(WB_BINARY_DIR) + "/bench_policies_truths.txt";
  std::map<std::string, sim::Truth> truths;
  {
    std::ifstream cache(path);
    std::string h, key;
    sim::Truth t;
    while (cache >> h >> key >> t.peak_rate >> t.region_low >> t.region_high) {
      if (h == hash) truths[key] = t;
    }
  }
  bool added = false;
  for (const auto& s : samples) {
    if (truths.count(s.key())) continue;
    truths[s.key()] = sim::compute_truth(*c.sim(), s, c.peak().region);
    added = true;
  }
  if (added) {
    std::ofstream out(path);
    for (const auto& [k, t] : truths)
      out << fmt::format("{} {} {} {} {}\n", hash, k, t.peak_rate, t.region_low, t.region_high);
  }
  return truths;
}

ExpectedPeak model_peaks(const Config& c, const std::vector<Sample>& samples) {
  std::map<std::string, double> peaks;
  for (const auto& s : samples) peaks[s.key()] = expect_peak(c, s, {}).peak_rate;
  return [peaks = std::move(peaks)](const Sample& s) -> std::optional<double> {
    auto it = peaks.find(s.key());
    if (it == peaks.end()) return std::nullopt;
    return it->second;
  };
}

namespace {

// A variant names its runlength policy as the config does ("fixed" or "adaptive").
RunlengthKind runlength_kind(const std::string& name) {
  if (std::optional<RunlengthKind> kind = parse_runlength_kind(name)) return *kind;
  throw InputError("bench_policies: unknown runlength '" + name + "'");
}

std::uint64_t seed_value(int seed) { return static_cast<std::uint64_t>(seed) * 7919 + 17; }

// What a search cost and found, against the sample's truth.
Outcome outcome_of(const SearchResult& r, const sim::Truth& t, const PeakConfig& peak, double start) {
  Outcome o;
  o.cost = r.cost_s;
  o.found = has_peak(r.status);  // found, or a cliff's knee
  o.in_region = o.found && r.peak_rate >= t.region_low && r.peak_rate <= t.region_high;
  o.interval_covers = o.found && r.peak_low <= t.peak_rate && t.peak_rate <= r.peak_high;
  o.loads = static_cast<int>(r.loads.size());
  double in_loads = 0;
  for (const auto& l : r.loads) {
    double lc = 0;
    for (const auto& tr : l.trials) lc += tr.cost_s;
    in_loads += lc;
    if (l.verdict == Verdict::kPeak) {
      o.claim_trials = static_cast<int>(l.trials.size());
      o.claim_runlength = l.runlength_s;
      o.claim_rate = l.rate;
      o.cost_peak += lc, o.peak_trials += static_cast<int>(l.trials.size());
    } else {
      o.cost_side += lc, o.side_trials += static_cast<int>(l.trials.size()), ++o.side_loads;
      Outcome::Side sd;
      double half = (t.region_high - t.region_low) / 2;
      sd.rate = l.rate;
      sd.z = half > 0 ? (l.rate - t.peak_rate) / half : 0;
      sd.trials = static_cast<int>(l.trials.size());
      sd.cost = lc;
      sd.runlength = l.runlength_s;
      const double sat = peak.region.sat_ms, w = peak.region.width;
      sd.evidence = l.saturated || l.ci.low > sat * (1 + w) || l.ci.high < sat * (1 - w);
      sd.saturated = l.saturated;
      sd.first = &l == &r.loads.front();
      sd.mean = l.ci.mean, sd.low = l.ci.low, sd.high = l.ci.high;
      sd.claimed_after = r.status == SearchStatus::kFound;
      o.sides.push_back(sd);
    }
  }
  o.cost_restart = r.cost_s - in_loads;
  o.start_distance = std::abs(start - t.peak_rate) / t.peak_rate;
  o.start = start;
  return o;
}

}  // namespace

std::vector<Outcome> run_tour(const Config& c, const std::vector<Sample>& tour,
                              const std::map<std::string, sim::Truth>& truths, const ExpectedPeak& expected,
                              const Variant& v, const Target& target, int seed, const std::string& swap,
                              std::vector<Outcome>* swapped) {
  sim::SimulatedTestbed testbed(*c.sim(), seed_value(seed));
  SearchOptions options{c.peak(), target};
  std::vector<PastPeak> past;
  std::vector<VarianceObservation> prior;
  std::vector<Outcome> out;
  for (const auto& s : tour) {
    double start = c.peak().start_rate;
    bool seeded = false;
    double elasticity = 0;
    if (v.seeding) {
      ExpectedPeak none;
      if (auto seed_choice = choose_seed(s, past, c.factors(), v.model_seed ? expected : none))
        start = seed_choice->rate, seeded = true, elasticity = seed_choice->elasticity;
    }
    const sim::Truth& t = truths.at(s.key());
    if (!swap.empty() && swapped != nullptr) {
      auto other = make_picker(swap, c.peak(), start, seeded, elasticity);
      auto other_rl = make_runlength_policy(runlength_kind(v.runlength), prior, seeded);
      SearchResult r = run_search(s, options, *other, testbed, nullptr, other_rl.get());
      swapped->push_back(outcome_of(r, t, c.peak(), start));
    }
    auto picker = make_picker(v.policy, c.peak(), start, seeded, elasticity);
    auto rl = make_runlength_policy(runlength_kind(v.runlength), prior, seeded);
    SearchResult r = run_search(s, options, *picker, testbed, nullptr, rl.get());
    Outcome o = outcome_of(r, t, c.peak(), start);
    out.push_back(o);
    if (o.found) {
      past.push_back(past_peak(s, r.loads, r.peak_rate, c.peak()));
    }
    for (const auto& vo : variance_observations(r.loads)) prior.push_back(vo);
    if (prior.size() > 80)
      prior.erase(prior.begin(), prior.begin() + static_cast<std::ptrdiff_t>(prior.size() - 80));
  }
  return out;
}

std::vector<double> oracle_costs(const Config& c, const Sample& s, double rate, double r,
                                 const Target& target, int seed, const std::vector<int>& firsts) {
  sim::SimulatedTestbed testbed(*c.sim(), seed_value(seed) ^ 0x5eed);
  SearchOptions options{c.peak(), target};
  std::vector<TestLoad> loads(firsts.size());
  std::vector<double> cost(firsts.size(), -1);
  for (std::size_t k = 0; k < firsts.size(); ++k) {
    loads[k].rate = rate, loads[k].runlength_s = r, loads[k].first_claim_look = firsts[k];
  }
  double spent = 0;
  std::size_t open = firsts.size();
  for (std::uint64_t i = 0; open > 0; ++i) {
    TrialResult t = testbed.run(s, rate, r, i);
    spent += t.cost_s;
    for (std::size_t k = 0; k < firsts.size(); ++k) {
      if (cost[k] >= 0) continue;
      TestLoad& load = loads[k];
      load.trials.push_back(t);
      int n = static_cast<int>(load.trials.size());
      if (n < c.peak().min_trials) continue;
      if (judge_load(load, options) == Verdict::kPeak || n >= c.peak().max_trials) cost[k] = spent, --open;
    }
  }
  return cost;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  std::size_t n = xs.size();
  return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

}  // namespace wb
