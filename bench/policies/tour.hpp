#pragma once
// bench_policies' measurements (main.cpp prints them): the variants, one mapping of the surface
// by a variant along a nearest-neighbour tour, the true λ* of each sample, and the oracle.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/config.hpp"
#include "harness/sim/truth.hpp"
#include "policies/search.hpp"
#include "policies/seeding.hpp"

namespace wb {

struct Variant {
  std::string policy;
  std::string runlength;
  bool seeding;
  bool model_seed = true;  // seeding carries the neighbour's λ* by the expectation model's ratio
  std::string label() const {
    std::string l = policy;
    if (policy != "strawman" && runlength == "fixed") l += " (fixed r)";
    if (!seeding) return l;
    return l + (model_seed ? " +seeding" : " +nearest seed");
  }
};

struct Outcome {
  double cost = 0;
  bool found = false;
  bool in_region = false;
  bool interval_covers = false;
  int loads = 0;
  // Where the cost went (--breakdown): the claimed load's trials, loads judged above or below, and
  // rough trials discarded when a load restarted at a longer runlength.
  double cost_peak = 0, cost_side = 0, cost_restart = 0;
  int side_loads = 0, side_trials = 0, peak_trials = 0;
  double start_distance = 0;  // |first load − true λ*| / true λ*
  double start = 0;           // the first load, /s (the seed when seeded)
  // --side-detail: each side load, placed against the true region and the way it was decided.
  struct Side {
    double rate = 0;
    double z = 0;           // (rate − true λ*) / the region's half-width in rate
    int trials = 0;         // trials judged (after a restart, those at the longer runlength)
    double cost = 0;        // its trials' cost, s
    double runlength = 0;   // r of its judged trials
    bool evidence = false;  // CI at the target confidence wholly outside the region, or saturated
    bool saturated = false;
    bool first = false;                  // the search's first load
    double mean = 0, low = 0, high = 0;  // its CI at the target confidence, ms
    bool claimed_after = false;          // the search found a peak afterwards
  };
  std::vector<Side> sides;
  int claim_trials = 0;  // trials of the claimed load, 0 when not found
  double claim_rate = 0;
  double claim_runlength = 0;
};

// Every (disks, threads) sample of the config.
std::vector<Sample> all_samples(const Config& c);
// The samples from the first one on, each next the nearest (normalized level distance) of the rest.
std::vector<Sample> nearest_neighbour_tour(std::vector<Sample> rest, const std::vector<Factor>& factors);
// The true λ* of each sample by its key, from <build>/bench_policies_truths.txt or computed (and
// then cached) with sim::compute_truth.
std::map<std::string, sim::Truth> load_truths(const Config& c, const std::vector<Sample>& samples);
// The expectation model's λ* of each of `samples` ([model] of the config, no calibration): what
// `workbench peak --seeding` scales a neighbour's λ* by. Unknown samples have none.
ExpectedPeak model_peaks(const Config& c, const std::vector<Sample>& samples);

// One mapping of the surface by one variant. With `swap` (another picker's name) and `swapped`,
// each sample is searched a second time by that picker from the same state: the same start, seed
// elasticity, runlength history and testbed stream (a trial's draws depend only on the seed, sample,
// rate and trial index, so the two searches see the same trials wherever they measure the same
// load). Only the picker differs. Those outcomes go to *swapped, one per sample, and do not enter
// the tour's history.
std::vector<Outcome> run_tour(const Config& c, const std::vector<Sample>& tour,
                              const std::map<std::string, sim::Truth>& truths, const ExpectedPeak& expected,
                              const Variant& v, const Target& target, int seed, const std::string& swap = "",
                              std::vector<Outcome>* swapped = nullptr);
// The confirmation alone at the true λ*, at runlength r, for each first claim look in `firsts`
// (TestLoad::first_claim_look; 0: every look): one sequence of trials, judged under each schedule.
std::vector<double> oracle_costs(const Config& c, const Sample& s, double rate, double r,
                                 const Target& target, int seed, const std::vector<int>& firsts);
double median(std::vector<double> xs);

// f(0) .. f(n-1) on `threads` threads.
template <class F>
void parallel_for(int n, int threads, F f) {
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int w = 0; w < std::max(1, threads); ++w) {
    pool.emplace_back([&] {
      for (int i = next++; i < n; i = next++) f(i);
    });
  }
  for (auto& t : pool) t.join();
}

}  // namespace wb
