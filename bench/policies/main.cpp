// Benchmark of the peak-search policies: what each load-picking policy costs to map the whole
// response surface of configs/sim.toml (4 disk counts x 8 thread counts = 32 samples), with and
// without seeding [003 §3.7], against the strawman [003 §3.1] and an oracle, in the manner of
// [003 Fig. 8]; and Binsearch's cost against the target confidence and accuracy [003 Fig. 9].
//
// Each (policy, seeding, seed) maps the surface once: the 32 samples in a nearest-neighbour tour
// (normalized level distance, from disks=1,threads=1), one simulated testbed per seed, so every
// policy sees the same random streams. Seeded searches start at choose_seed() of the samples the
// tour has measured so far; the adaptive runlength gets the variances of those searches as the
// testbed's history. "+seeding" is what `workbench peak --seeding` does with a [model]: the
// neighbour's λ* scaled by the expectation model's ratio (the first sample starts at the model's
// λ*), and model-safe aims with the elasticity of the neighbours' curves (SeedChoice::elasticity);
// "+nearest seed" is [003 §3.7]'s seed as it is. Cost is simulated benchmarking time (warm-up + r +
// overhead per trial).
//
// Oracle: knows the true λ* of each sample (sim::compute_truth, long runs) and only runs the final
// confirmation there — trials until judge_load() claims the peak with the same sequential rule —
// at the best fixed runlength for that sample among 30, 60, 120, 240 s and the best first claim
// look among the scheduled ones (TestLoad::first_claim_look), both known in advance: chosen by their
// mean cost on 20 seeds of their own (1001...), then scored on the policies' seeds.
//
// Coverage: the fraction of searches whose λ* lies in the true peak-rate region
// [λ(R_sat(1-s)), λ(R_sat(1+s))]; not-found searches count as misses. Interval coverage: the
// fraction whose reported [peak_low, peak_high] contains the true λ*.
//
// The strawman steps by configs/sim.toml's strawman_step = 2/s, small enough that its λ* (the last
// load below R_sat) lies in the region, as [003 §3.1] runs it ("a small increment to produce an
// accurate result"); that makes it ~53 loads × 10 trials × 5 min per search, and its cost varies
// little by seed, so it gets 2 seeds by default.
//
// Usage: bench_policies [--seeds N] [--strawman-seeds N] [--curve-seeds N] [--threads N] [--no-curve]
//                       [--breakdown] [--side-detail] [--per-sample] [--seeded-only] [--policies P,Q]
//   --config F: another variant of configs/sim.toml (same factors), e.g. other [peak] settings.
//   defaults: 20 seeds, 2 for the strawman, 5 for the cost-vs-target curve, 1 thread.
//   --per-sample: only binsearch and model-safe (adaptive r), with and without seeding — what the
//   per-sample goal compares — so that many seeds fit in the time. With seeding it also prints the
//   pickers paired: each seeded tour searches every sample with the other picker too, from the same
//   start, history and trials (twice the seeded tours' time).
//   --breakdown: per search, the cost on the claimed load, on loads judged above/below and on
//   discarded rough trials, side loads and their trials, and the first load's distance from λ*.
//   --side-detail: side loads by their distance from the true λ* (in region half-widths) and how
//   they were decided; the trial counts at which peaks were claimed; the oracle's r and first claim
//   look per sample.
//   --seeded-only: only the seeded variants (A/B runs of a change that only seeding sees).
//   --policies P,Q: only these pickers (quick comparisons; the ÷strawman column is then 0).
//   Truths are cached in <build>/bench_policies_truths.txt.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "harness/sim/truth.hpp"
#include "per_sample.hpp"
#include "policies/runlength.hpp"
#include "policies/search.hpp"
#include "policies/seeding.hpp"
#include "tour.hpp"

using namespace wb;

int main(int argc, char** argv) {
  int seeds = 20, strawman_seeds = 2, curve_seeds = 5, threads = 1;
  bool curve = true, breakdown = false, side_detail = false, per_sample_only = false, seeded_only = false;
  std::vector<std::string> only;  // --policies: run only these pickers (quick A/B)
  std::string config_path = std::string(WB_SOURCE_DIR) + "/configs/sim.toml";
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (arg("--seeds"))
      seeds = std::atoi(argv[++i]);
    else if (arg("--strawman-seeds"))
      strawman_seeds = std::atoi(argv[++i]);
    else if (arg("--curve-seeds"))
      curve_seeds = std::atoi(argv[++i]);
    else if (arg("--threads"))
      threads = std::atoi(argv[++i]);
    else if (arg("--config"))
      config_path = argv[++i];
    else if (std::strcmp(argv[i], "--no-curve") == 0)
      curve = false;
    else if (std::strcmp(argv[i], "--breakdown") == 0)
      breakdown = true;
    else if (std::strcmp(argv[i], "--side-detail") == 0)
      side_detail = true;
    else if (std::strcmp(argv[i], "--per-sample") == 0)
      per_sample_only = true;
    else if (std::strcmp(argv[i], "--seeded-only") == 0)
      seeded_only = true;
    else if (arg("--policies")) {
      std::stringstream list(argv[++i]);
      for (std::string name; std::getline(list, name, ',');) only.push_back(name);
    } else {
      fmt::print(stderr,
                 "usage: bench_policies [--seeds N] [--strawman-seeds N] [--curve-seeds N] [--threads N] "
                 "[--no-curve] [--breakdown] [--side-detail] [--per-sample] [--seeded-only] [--config F] "
                 "[--policies P,Q]\n");
      return 2;
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  const Config c = Config::load(config_path);
  const Target target = c.peak().target;
  std::vector<Sample> samples = all_samples(c);
  std::vector<Sample> tour = nearest_neighbour_tour(samples, c.factors());
  auto truths = load_truths(c, samples);
  const ExpectedPeak expected = model_peaks(c, samples);
  fmt::print(
      "bench_policies: configs/sim.toml, {} samples, target {}, {} seeds ({} for the strawman); truths in "
      "{:.0f} s\n",
      samples.size(), target.to_string(), seeds, strawman_seeds,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  std::vector<Variant> variants;
  for (bool seeding : {false, true}) {
    variants.push_back({"strawman", "fixed", seeding});
    variants.push_back({"linear", "adaptive", seeding});
    variants.push_back({"binsearch", "fixed", seeding});
    variants.push_back({"binsearch", "adaptive", seeding});
    variants.push_back({"model", "adaptive", seeding});
    variants.push_back({"model-safe", "adaptive", seeding});
  }
  // [003 §3.7]'s plain seed (the nearest sample's λ* as it is), for comparison with the default.
  for (const char* p : {"binsearch", "model", "model-safe"}) variants.push_back({p, "adaptive", true, false});
  if (!only.empty()) {
    std::erase_if(variants, [&](const Variant& v) {
      return std::find(only.begin(), only.end(), v.policy) == only.end();
    });
  }
  if (seeded_only) std::erase_if(variants, [](const Variant& v) { return !v.seeding; });
  if (per_sample_only) {
    std::erase_if(variants, [](const Variant& v) {
      return !(v.policy == "binsearch" || v.policy == "model-safe") || v.runlength != "adaptive" ||
             !v.model_seed;
    });
  }
  struct Job {
    std::size_t variant;
    int seed;
  };
  std::vector<Job> jobs;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    int n = variants[v].policy == "strawman" ? strawman_seeds : seeds;
    for (int s = 1; s <= n; ++s) jobs.push_back({v, s});
  }
  // outcomes[variant][seed-1][tour position]
  Outcomes outcomes(variants.size(),
                    std::vector<std::vector<Outcome>>(seeds > strawman_seeds ? seeds : strawman_seeds));
  // --per-sample: each seeded binsearch and model-safe tour also searches every sample with the other
  // picker from the same state (run_tour's swap), so that the two pickers meet on equal terms:
  // swapped[variant][seed-1][tour position].
  auto swap_for = [&](const Variant& v) -> std::string {
    if (!per_sample_only || !v.seeding || v.runlength != "adaptive" || !v.model_seed) return "";
    if (v.policy == "binsearch") return "model-safe";
    if (v.policy == "model-safe") return "binsearch";
    return "";
  };
  Outcomes swapped(variants.size(), std::vector<std::vector<Outcome>>(outcomes[0].size()));
  parallel_for(static_cast<int>(jobs.size()), threads, [&](int i) {
    const Job& j = jobs[static_cast<std::size_t>(i)];
    const auto s = static_cast<std::size_t>(j.seed - 1);
    outcomes[j.variant][s] = run_tour(c, tour, truths, expected, variants[j.variant], target, j.seed,
                                      swap_for(variants[j.variant]), &swapped[j.variant][s]);
  });

  // Oracle: per sample, the best fixed runlength and first claim look (known in advance, as the
  // sweet spot is), by mean confirmation cost. They are chosen on seeds of their own (1001, 1002,
  // ...) and the oracle's cost is then measured on the policies' seeds: choosing the best of the
  // 4 x 6 settings by their mean over the very draws they are scored on also picks the settings
  // that were lucky on those draws, an oracle no policy can match even in principle (8 seeds: 13.0 h
  // in-sample against 13.8 h for settings chosen on 20 other seeds). Both are printed.
  const std::vector<double> grid{30, 60, 120, 240};
  std::vector<int> firsts{0};
  {
    std::vector<int> looks = accuracy_looks(c.peak());
    for (std::size_t i = 1; i < looks.size(); ++i) firsts.push_back(looks[i]);
  }
  const int selection_seeds = std::max(seeds, 20);
  std::vector<double> oracle(tour.size());
  std::vector<double> oracle_in_sample(tour.size());
  std::vector<double> oracle_r(tour.size());
  std::vector<int> oracle_first(tour.size());
  parallel_for(static_cast<int>(tour.size()), threads, [&](int k) {
    const Sample& s = tour[static_cast<std::size_t>(k)];
    const double rate = truths.at(s.key()).peak_rate;
    auto mean_costs = [&](double r, int first_seed, int n) {
      std::vector<double> sum(firsts.size());
      for (int seed = first_seed; seed < first_seed + n; ++seed) {
        auto costs = oracle_costs(c, s, rate, r, target, seed, firsts);
        for (std::size_t f = 0; f < firsts.size(); ++f) sum[f] += costs[f] / n;
      }
      return sum;
    };
    double best = 1e300, best_in_sample = 1e300;
    for (double r : grid) {
      std::vector<double> chosen = mean_costs(r, 1001, selection_seeds);
      std::vector<double> scored = mean_costs(r, 1, seeds);
      for (std::size_t f = 0; f < firsts.size(); ++f) {
        best_in_sample = std::min(best_in_sample, scored[f]);
        if (chosen[f] < best) {
          best = chosen[f], oracle[static_cast<std::size_t>(k)] = scored[f];
          oracle_r[static_cast<std::size_t>(k)] = r;
          oracle_first[static_cast<std::size_t>(k)] = firsts[f];
        }
      }
    }
    oracle_in_sample[static_cast<std::size_t>(k)] = best_in_sample;
  });
  double oracle_total = 0, oracle_in_sample_total = 0;
  for (double o : oracle) oracle_total += o;
  for (double o : oracle_in_sample) oracle_in_sample_total += o;

  // Table in the manner of [003 Fig. 8].
  struct Row {
    double mean_total = 0, found = 0, covered = 0, interval = 0, loads = 0;
    int n = 0;
  };
  std::vector<Row> rows(variants.size());
  for (std::size_t v = 0; v < variants.size(); ++v) {
    int n = variants[v].policy == "strawman" ? strawman_seeds : seeds;
    Row& row = rows[v];
    double searches = 0;
    for (int s = 0; s < n; ++s) {
      for (const auto& o : outcomes[v][static_cast<std::size_t>(s)]) {
        row.mean_total += o.cost / n;
        row.found += o.found, row.covered += o.in_region, row.interval += o.interval_covers,
            row.loads += o.loads;
        searches += 1;
      }
    }
    row.found /= searches, row.covered /= searches, row.interval /= searches, row.loads /= searches;
    row.n = static_cast<int>(searches);
  }
  double cheapest = 1e300;
  for (const auto& r : rows) cheapest = std::min(cheapest, r.mean_total);
  fmt::print("\nTotal cost of mapping the 32-sample surface (mean over seeds) [003 Fig. 8]\n");
  fmt::print("{:<28} {:>9} {:>11} {:>9} {:>10} {:>7} {:>9} {:>10} {:>7}\n", "policy", "hours", "normalized",
             "÷oracle", "÷strawman", "found", "coverage", "λ*-interval", "loads");
  // Without the strawman (--policies), ÷strawman is left at 0.
  double straw = variants.front().policy == "strawman" ? rows[0].mean_total : 1e300;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const Row& r = rows[v];
    fmt::print("{:<28} {:>9.1f} {:>11.2f} {:>9.2f} {:>10.3f} {:>6.1f}% {:>8.1f}% {:>10.1f}% {:>7.1f}\n",
               variants[v].label(), r.mean_total / 3600, r.mean_total / cheapest, r.mean_total / oracle_total,
               r.mean_total / straw, 100 * r.found, 100 * r.covered, 100 * r.interval, r.loads);
  }
  fmt::print("{:<28} {:>9.1f} {:>11.2f} {:>9.2f} {:>10.3f}\n", "oracle (confirmation only)",
             oracle_total / 3600, oracle_total / cheapest, 1.0, oracle_total / straw);
  fmt::print("{:<28} {:>9.1f} {:>11.2f} {:>9.2f} {:>10.3f}   (settings chosen on these seeds)\n",
             "oracle, in-sample", oracle_in_sample_total / 3600, oracle_in_sample_total / cheapest,
             oracle_in_sample_total / oracle_total, oracle_in_sample_total / straw);

  if (side_detail) {
    // Side loads by where they lie against the true region (z: distance from λ* in region
    // half-widths) and how they were decided; per search, mean over the variant's searches.
    fmt::print(
        "\nSide loads by distance from λ* (z = (λ − λ*)/region half-width): loads/search, trials/load, "
        "hours/search, % decided by evidence (CI at c outside the region), % first loads\n");
    const std::vector<std::pair<double, double>> bins{{-1e300, -10}, {-10, -4}, {-4, -2}, {-2, -1},   {-1, 1},
                                                      {1, 2},        {2, 4},    {4, 10},  {10, 1e300}};
    fmt::print("{:<28}", "policy");
    for (const auto& [a, b] : bins) {
      fmt::print(" {:>22}", a < -1e299
                                ? fmt::format("z<{:g}", b)
                                : (b > 1e299 ? fmt::format("z>{:g}", a) : fmt::format("[{:g},{:g}]", a, b)));
    }
    fmt::print("\n");
    for (std::size_t v = 0; v < variants.size(); ++v) {
      int n = variants[v].policy == "strawman" ? strawman_seeds : seeds;
      double searches = 0;
      std::vector<double> cnt(bins.size()), tr(bins.size()), cost(bins.size()), ev(bins.size()),
          fi(bins.size());
      for (int s = 0; s < n; ++s) {
        for (const auto& o : outcomes[v][static_cast<std::size_t>(s)]) {
          searches += 1;
          for (const auto& sd : o.sides) {
            for (std::size_t b = 0; b < bins.size(); ++b) {
              if (sd.z < bins[b].first || sd.z >= bins[b].second) continue;
              cnt[b] += 1, tr[b] += sd.trials, cost[b] += sd.cost, ev[b] += sd.evidence, fi[b] += sd.first;
            }
          }
        }
      }
      fmt::print("{:<28}", variants[v].label());
      for (std::size_t b = 0; b < bins.size(); ++b) {
        if (cnt[b] == 0) {
          fmt::print(" {:>22}", "-");
          continue;
        }
        fmt::print(" {:>22}",
                   fmt::format("{:.2f} {:.1f} {:.3f} {:.0f}% {:.0f}%", cnt[b] / searches, tr[b] / cnt[b],
                               cost[b] / searches / 3600, 100 * ev[b] / cnt[b], 100 * fi[b] / cnt[b]));
      }
      fmt::print("\n");
    }
  }

  if (side_detail) {
    fmt::print("\nOracle's runlength and first claim look per sample:");
    for (std::size_t k = 0; k < tour.size(); ++k) fmt::print(" {:g}/{}", oracle_r[k], oracle_first[k]);
    fmt::print("\n");
    fmt::print("\nClaims by the claimed load's trial count (% of found searches)\n");
    for (std::size_t v = 0; v < variants.size(); ++v) {
      int n = variants[v].policy == "strawman" ? strawman_seeds : seeds;
      std::map<int, int> at;
      int found = 0;
      double rl = 0;
      for (int s = 0; s < n; ++s) {
        for (const auto& o : outcomes[v][static_cast<std::size_t>(s)]) {
          if (o.claim_trials > 0) ++at[o.claim_trials], ++found, rl += o.claim_runlength;
        }
      }
      fmt::print("{:<28}", variants[v].label());
      for (const auto& [k, cnt] : at) fmt::print(" {}:{:.1f}%", k, 100.0 * cnt / std::max(found, 1));
      fmt::print("  mean r {:.0f} s", rl / std::max(found, 1));
      fmt::print("\n");
    }
  }

  if (breakdown) {
    // Where a search's cost goes beyond the oracle's confirmation (per search, mean over searches).
    fmt::print("\nCost breakdown per search (mean, hours; trials per load)\n");
    fmt::print("{:<28} {:>7} {:>7} {:>7} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "policy", "total", "claimed",
               "sides", "restarts", "oracle", "side lds", "tr/side", "tr/claim", "start dist");
    double oracle_mean = oracle_total / static_cast<double>(tour.size());
    for (std::size_t v = 0; v < variants.size(); ++v) {
      int n = variants[v].policy == "strawman" ? strawman_seeds : seeds;
      double tot = 0, pk = 0, sd = 0, rs = 0, sl = 0, st = 0, pt = 0, dist = 0, cnt = 0, found = 0;
      for (int s = 0; s < n; ++s) {
        for (const auto& o : outcomes[v][static_cast<std::size_t>(s)]) {
          tot += o.cost, pk += o.cost_peak, sd += o.cost_side, rs += o.cost_restart;
          sl += o.side_loads, st += o.side_trials, pt += o.peak_trials, dist += o.start_distance;
          found += o.found;
          cnt += 1;
        }
      }
      fmt::print("{:<28} {:>7.2f} {:>7.2f} {:>7.2f} {:>8.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n",
                 variants[v].label(), tot / cnt / 3600, pk / cnt / 3600, sd / cnt / 3600, rs / cnt / 3600,
                 oracle_mean / 3600, sl / cnt, sl > 0 ? st / sl : 0.0, found > 0 ? pt / found : 0.0,
                 dist / cnt);
    }
  }

  auto idx = [&](const std::string& p, const std::string& rl, bool seeding) {
    return variant_index(variants, p, rl, seeding);
  };
  auto present = [&](const std::string& p) { return has_policy(variants, p); };
  print_per_sample(variants, outcomes, swapped, tour, truths, oracle, seeds, seeded_only);

  // Goals.
  fmt::print("\nGoals\n");
  if (present("strawman") && present("binsearch")) {
    double bs_seed = rows[idx("binsearch", "adaptive", true)].mean_total;
    double bs_seed_fixed = rows[idx("binsearch", "fixed", true)].mean_total;
    fmt::print("binsearch +seeding ÷ strawman: {:.3f} (adaptive r), {:.3f} (fixed r)   goal ≤ 0.200\n",
               bs_seed / straw, bs_seed_fixed / straw);
  }
  double best_seed = 1e300, best_plain = 1e300;
  std::string best_seed_name, best_plain_name;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    double& best = variants[v].seeding ? best_seed : best_plain;
    std::string& name = variants[v].seeding ? best_seed_name : best_plain_name;
    if (rows[v].mean_total < best) best = rows[v].mean_total, name = variants[v].label();
  }
  if (!best_seed_name.empty())
    fmt::print("best with seeding: {} at {:.2f}× oracle (goal ≤ 1.5)\n", best_seed_name,
               best_seed / oracle_total);
  if (!best_plain_name.empty())
    fmt::print("best without seeding: {} at {:.2f}× oracle (goal ≤ 3)\n", best_plain_name,
               best_plain / oracle_total);
  for (std::size_t v = 0; v < variants.size(); ++v) {
    if (rows[v].covered < target.confidence) {
      fmt::print("coverage below {:g}%: {} at {:.1f}%\n", target.confidence * 100, variants[v].label(),
                 100 * rows[v].covered);
    }
  }

  if (curve) {
    // [003 Fig. 9]: Binsearch (adaptive r, no seeding) at confidences 60/75/90/95 and accuracies 40..95%.
    const std::vector<int> confs{60, 75, 90, 95};
    const std::vector<int> accs{40, 50, 60, 70, 80, 90, 95};
    std::vector<double> cost(confs.size() * accs.size());
    parallel_for(static_cast<int>(cost.size()), threads, [&](int i) {
      Target t{confs[static_cast<std::size_t>(i) / accs.size()] / 100.0,
               accs[static_cast<std::size_t>(i) % accs.size()] / 100.0};
      double sum = 0;
      for (int s = 1; s <= curve_seeds; ++s) {
        for (const auto& o : run_tour(c, tour, truths, expected, {"binsearch", "adaptive", false}, t, s))
          sum += o.cost;
      }
      cost[static_cast<std::size_t>(i)] = sum / curve_seeds;
    });
    double low = *std::min_element(cost.begin(), cost.end());
    fmt::print("\nBinsearch cost vs target (normalized to the cheapest, {:.1f} h; {} seeds) [003 Fig. 9]\n",
               low / 3600, curve_seeds);
    fmt::print("{:<12}", "confidence");
    for (int a : accs) fmt::print(" {:>6}", fmt::format("a={}%", a));
    fmt::print("\n");
    for (std::size_t ci = 0; ci < confs.size(); ++ci) {
      fmt::print("{:<12}", fmt::format("c={}%", confs[ci]));
      for (std::size_t ai = 0; ai < accs.size(); ++ai)
        fmt::print(" {:>6.2f}", cost[ci * accs.size() + ai] / low);
      fmt::print("\n");
    }
  }
  fmt::print("\nwall time {:.0f} s\n",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}
