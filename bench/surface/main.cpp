// Benchmark of map-surface on a simulated 4 disks x 8 thread counts grid (configs/sim.toml by
// default, the grid of [003 §5.3.2]), through the library API (plan_surface, run_surface,
// fit_measured), not the CLI:
//  1. MAPE over all 32 samples of fixed classes fitted from 6, 8 and 10 D-optimal points, against
//     the true λ* of every sample (sim::compute_truth), next to [003 Table 4];
//  1b. the same for --model auto (the default), with and without the [model] anchor, and the
//     cross-validated error the tool reports next to the true MAPE;
//  2. sequential augmentation of each fixed class until its LOO MAPE is <= 5%;
//  3. the cost of the D-optimal surface vs the full factorial, with and without seeding [003 Fig. 8];
//  4. wall time at --parallel 1, 2, 4 (the busiest slot's virtual time) and the real time.
// Figures and what they showed: bench/surface/RESULTS.txt. bench/surface/contention.toml is
// configs/sim.toml with a deviation its [model] lacks.
//
//  5. (--system F, repeatable, instead of 1-4) --model auto with default flags on other systems:
//     every factor of F, numeric or categorical, MAPE against the truth of every sample.
//
// Usage: bench_surface [--config F] [--truth-cache PATH] [--system F]...
//   --truth-cache  a workbench store that caches the true λ* (the same cache as `workbench sim truth`);
//                  default /tmp/wb_bench_surface_truth.db. Computing the 32 truths takes a few minutes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/surface_fit.hpp"
#include "experiment/surface_plan.hpp"
#include "experiment/surface_runner.hpp"
#include "harness/sim/sim_testbed.hpp"
#include "harness/sim/truth.hpp"
#include "rsm/surface.hpp"
#include "rsm/validation.hpp"
#include "store/store.hpp"

namespace fs = std::filesystem;
using namespace wb;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Eigen::VectorXd true_peaks(const Config& config, const SurfacePlan& plan, const std::string& cache) {
  store::Store store(cache);
  const std::string hash = sim::truth_key(config);  // shared with `workbench sim truth`
  Eigen::VectorXd y(static_cast<Eigen::Index>(plan.samples.size()));
  for (std::size_t i = 0; i < plan.samples.size(); ++i) {
    const Sample& s = plan.samples[i];
    auto row = store.find_truth(config.name(), s.key(), hash);
    if (!row) {
      sim::Truth t = sim::compute_truth(*config.sim(), s, config.peak().region, config.sim()->seed);
      row = store::Store::TruthRow{t.peak_rate, t.region_low, t.region_high};
      store.put_truth(config.name(), s.key(), hash, *row);
    }
    y(static_cast<Eigen::Index>(i)) = row->peak_rate;
  }
  return y;
}

struct Bench {
  const Config& config;
  fs::path dir;
  int stores = 0;

  // Runs the searches of `tour` (candidate rows of `plan`) in a fresh store.
  SurfaceRun run(const SurfacePlan& plan, const std::vector<Eigen::Index>& tour, bool seeding, int parallel,
                 double* real_s = nullptr) {
    std::string path = (dir / fmt::format("s{}.db", stores++)).string();
    std::vector<Sample> samples;
    for (Eigen::Index r : tour) samples.push_back(plan.samples[static_cast<std::size_t>(r)]);
    std::int64_t id = store::Store(path).create_surface(config.name(), "bench", "{}", samples);
    SurfaceRunOptions o;
    o.store_path = path;
    o.parallel = parallel;
    o.seeding = seeding;
    o.search = {config.peak(), config.peak().target};
    o.policy = config.peak().policy;
    o.start_rate = config.peak().start_rate;
    o.search_record.testbed = config.name();
    o.search_record.policy = o.policy;
    o.factors = &config.factors();
    o.make_runner = [&](int) {
      return std::make_unique<sim::SimulatedTestbed>(*config.sim(), config.sim()->seed);
    };
    auto t0 = Clock::now();
    SurfaceRun r = run_surface(id, o);
    if (real_s != nullptr) *real_s = seconds_since(t0);
    return r;
  }
};

// Surface from the found peaks of `run` at `tour`; MAPE (percent) against `truth` at every candidate.
struct Scored {
  std::optional<double> loo;
  double mape_all = 0;
  int measured = 0;
};

Scored score(const SurfacePlan& plan, const std::vector<Eigen::Index>& tour, const std::vector<double>& peaks,
             const Eigen::VectorXd& truth) {
  // The plan's own model: terms, response scale and coding.
  Eigen::MatrixXd pts(static_cast<Eigen::Index>(tour.size()), plan.candidates.cols());
  Eigen::VectorXd y(static_cast<Eigen::Index>(tour.size()));
  for (std::size_t i = 0; i < tour.size(); ++i) {
    pts.row(static_cast<Eigen::Index>(i)) = plan.candidates.row(tour[i]);
    y(static_cast<Eigen::Index>(i)) = peaks[i];
  }
  Surface s(plan.factors, plan.codings, plan.model, pts, y, plan.response);
  return {s.loo_mape(), mape(truth, s.predict_values(plan.candidates)), static_cast<int>(tour.size())};
}

std::vector<double> found_peaks(const SurfaceRun& run) {
  std::vector<double> p;
  for (const PointOutcome& o : run.points) {
    if (!o.peak_rate)
      throw Error(
          fmt::format("position {}: search {}", o.position, o.status ? to_string(*o.status) : "not started"));
    p.push_back(*o.peak_rate);
  }
  return p;
}

// A model option of map-surface (--model, --response, --coding).
struct Choice {
  std::string label;
  ModelKind model = ModelKind::kQuadratic;
  ResponseScale response = ResponseScale::kIdentity;
  std::string coding = "auto";

  SurfacePlanOptions options(const std::vector<std::string>& factors, const std::string& design,
                             int n) const {
    SurfacePlanOptions o{factors, design, n, 1};
    o.model = model;
    o.response = response;
    o.coding = coding;
    return o;
  }
};

// --model auto (the default): the class chosen by cross-validation among the candidates, anchored
// to the config's [model] when it has one.
struct AutoScored {
  SurfaceFit fit;
  double mape_all = 0;
};

AutoScored score_auto(const Config& config, const SurfacePlan& plan, const std::vector<Eigen::Index>& tour,
                      const std::vector<double>& peaks, const Eigen::VectorXd& truth, bool anchored) {
  Eigen::MatrixXd pts(static_cast<Eigen::Index>(tour.size()), plan.candidates.cols());
  Eigen::VectorXd y(static_cast<Eigen::Index>(tour.size()));
  for (std::size_t i = 0; i < tour.size(); ++i) {
    pts.row(static_cast<Eigen::Index>(i)) = plan.candidates.row(tour[i]);
    y(static_cast<Eigen::Index>(i)) = peaks[i];
  }
  std::vector<const Factor*> factors;
  for (const auto& f : plan.factors) factors.push_back(config.factor(f));
  Anchor anchor = anchored ? expectation_anchor(config, config.default_sample(), plan.factors, {}) : Anchor{};
  AutoScored a{fit_measured(factors, SurfaceSpec{}, pts, y, anchor)};
  if (!a.fit.surface) throw Error(a.fit.error);
  a.mape_all = mape(truth, a.fit.surface->predict_values(plan.candidates));
  return a;
}

// 5. --model auto with default flags on systems other than the one above: every factor of the
// config, D-optimal designs of the quadratic's terms + 2, + 5 and + 8 points, MAPE over every
// sample against the simulated truth, with the [model] anchor (the default) and without.
void other_system(const std::string& path, const std::string& cache) {
  Config config = Config::load(path);
  fs::path dir = fs::temp_directory_path() / fmt::format("wb_bench_surface_{}_{}", config.name(), getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  Bench bench{config, dir};
  std::vector<std::string> factors;
  for (const Factor& f : config.factors()) factors.push_back(f.name);
  SurfacePlan full = plan_surface(config, config.default_sample(), {factors, "full", 0, 1});
  auto t0 = Clock::now();
  Eigen::VectorXd truth = true_peaks(config, full, cache);
  fmt::print("\n{} ({}): {} samples over {}; truths in {:.0f} s\n", config.name(), path,
             full.candidates.rows(), fmt::join(factors, " x "), seconds_since(t0));
  fmt::print("{:>8} {:>9} {:>10} {:>12} {:>8}  {}\n", "points", "anchor", "MAPE-all", "reported CV",
             "CV/MAPE", "chosen class");
  SurfacePlanOptions o{factors, "dopt", 0, 1};
  o.select = true;
  const auto terms = static_cast<int>(plan_surface(config, config.default_sample(), o).terms.size());
  for (int n : {terms + 2, terms + 5, terms + 8}) {
    o.points = n;
    SurfacePlan plan = plan_surface(config, config.default_sample(), o);
    SurfaceRun r = bench.run(plan, plan.tour, false, 1);
    for (bool anchored : {true, false}) {
      if (anchored && !config.model()) continue;
      AutoScored a = score_auto(config, plan, plan.tour, found_peaks(r), truth, anchored);
      const double cv = a.fit.cv_mape.value_or(-1);
      fmt::print("{:>8} {:>9} {:>9.1f}% {:>11.1f}% {:>8.2f}  {}\n", n, anchored ? "[model]" : "none",
                 a.mape_all, cv, cv / a.mape_all, a.fit.description);
    }
  }
  fs::remove_all(dir);
}

std::string loo_text(std::optional<double> loo) {
  return loo ? fmt::format("{:.1f}%", *loo) : std::string("n/a");
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path = std::string(WB_SOURCE_DIR) + "/configs/sim.toml";
  std::string cache = "/tmp/wb_bench_surface_truth.db";
  std::vector<std::string> systems;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc)
      config_path = argv[++i];
    else if (std::strcmp(argv[i], "--system") == 0 && i + 1 < argc)
      systems.emplace_back(argv[++i]);
    else if (std::strcmp(argv[i], "--truth-cache") == 0 && i + 1 < argc)
      cache = argv[++i];
    else {
      fmt::print(stderr, "usage: bench_surface [--config F] [--truth-cache PATH] [--system F]...\n");
      return 2;
    }
  }
  try {
    if (!systems.empty()) {
      fmt::print(
          "5. --model auto, default flags, on other systems: MAPE over every sample vs the simulated truth "
          "[003 Table 4: DB_TP 14/14/15%, Web 9/9/9%, Mail 3.3/2.8/2.7%; goal <= 8%, CV within 2x]\n");
      for (const std::string& p : systems) other_system(p, cache);
      return 0;
    }
    Config config = Config::load(config_path);
    fs::path dir = fs::temp_directory_path() / fmt::format("wb_bench_surface_{}", getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    Bench bench{config, dir};
    const std::vector<std::string> factors{"disks", "threads"};
    SurfacePlan full = plan_surface(config, config.default_sample(), {factors, "full", 0, 1});

    auto t0 = Clock::now();
    Eigen::VectorXd truth = true_peaks(config, full, cache);
    fmt::print("config {}: {} samples (disks x threads); truths in {:.0f} s\n", config_path,
               full.candidates.rows(), seconds_since(t0));

    // The model options compared: the classic quadratic of [003 §4] (threads log-coded), and the
    // throughput-bound surface — 1/λ* as a polynomial in 1/disks and 1/threads.
    const std::vector<Choice> choices{
        {"quadratic", ModelKind::kQuadratic, ResponseScale::kIdentity, "auto"},
        {"recip-quad", ModelKind::kQuadratic, ResponseScale::kReciprocal, "inverse"},
        {"recip-cubic", ModelKind::kCubic, ResponseScale::kReciprocal, "inverse"},
    };
    fmt::print(
        "models: quadratic = quadratic in disks, log(threads) [003 §4]; recip-quad / recip-cubic = "
        "1/λ* as a\nquadratic / cubic in 1/disks, 1/threads (--response reciprocal --coding inverse "
        "[--model cubic])\n\n");

    // 1. Table 4.
    fmt::print(
        "1. MAPE over all 32 samples vs the true λ* [003 Table 4: DB_TP 14/14/15%, Web 9/9/9%, Mail "
        "3.3/2.8/2.7%]\n");
    fmt::print("{:>12} {:>8} {:>10} {:>10} {:>12} {:>10}\n", "model", "points", "MAPE-all", "LOO MAPE",
               "cost (h)", "trials");
    std::map<int, SurfaceRun> dopt_runs;  // of the quadratic, for sections 3 and 4
    std::map<int, SurfacePlan> dopt_plans;
    std::map<std::string, std::pair<SurfacePlan, SurfaceRun>> first_runs;  // smallest design per model
    for (const Choice& c : choices) {
      for (int n : {6, 8, 10}) {
        SurfacePlan plan = plan_surface(config, config.default_sample(), c.options(factors, "dopt", 0));
        if (n < static_cast<int>(plan.terms.size())) continue;  // too few points for the model
        plan = plan_surface(config, config.default_sample(), c.options(factors, "dopt", n));
        SurfaceRun r = bench.run(plan, plan.tour, false, 1);
        Scored s = score(plan, plan.tour, found_peaks(r), truth);
        int trials = 0;
        for (const auto& p : r.points) trials += p.trials;
        fmt::print("{:>12} {:>8} {:>9.1f}% {:>10} {:>12.1f} {:>10}\n", c.label, n, s.mape_all,
                   loo_text(s.loo), r.cost_s / 3600, trials);
        if (first_runs.count(c.label) == 0) first_runs.emplace(c.label, std::make_pair(plan, r));
        if (c.label == "quadratic") {
          dopt_plans.emplace(n, plan);
          dopt_runs.emplace(n, r);
        }
      }
    }
    SurfaceRun full_run = bench.run(full, full.tour, false, 1);
    for (const Choice& c : choices) {
      SurfacePlan plan = plan_surface(config, config.default_sample(), c.options(factors, "full", 0));
      Scored s = score(plan, full.tour, found_peaks(full_run), truth);
      fmt::print("{:>12} {:>8} {:>9.1f}% {:>10} {:>12.1f}   (full factorial: the model's own error)\n",
                 c.label, 32, s.mape_all, loo_text(s.loo), full_run.cost_s / 3600);
    }

    // The floor: each model fitted to the 32 TRUE peak rates (no measurement error).
    for (const Choice& c : choices) {
      SurfacePlan plan = plan_surface(config, config.default_sample(), c.options(factors, "full", 0));
      Surface exact(plan.factors, plan.codings, plan.model, plan.candidates, truth, plan.response);
      fmt::print("{:>12} {:>8} {:>9.1f}% {:>10}   (fitted to the 32 true λ*: the model's floor)\n", c.label,
                 "truth", mape(truth, exact.predict_values(plan.candidates)), loo_text(exact.loo_mape()));
    }
    {
      std::vector<Coding> codings{
          full.codings[0],
          Coding::from_levels(config.factor("threads")->numeric_levels, CodingScale::kLinear)};
      Surface exact(full.factors, codings, ModelKind::kQuadratic, full.candidates, truth);
      fmt::print("{:>12} {:>8} {:>9.1f}%   (quadratic, threads linear-coded, fitted to the 32 true λ*)\n",
                 "quadratic", "truth", mape(truth, exact.predict_values(full.candidates)));
    }

    // 1b. --model auto on the quadratic's D-optimal points: with and without the [model] anchor.
    fmt::print("\n1b. --model auto (the default): the class chosen by leave-one-out error\n");
    fmt::print("{:>8} {:>9} {:>10} {:>12}  {}\n", "points", "anchor", "MAPE-all", "reported CV",
               "chosen class (runner-up)");
    for (int n : {6, 8, 10}) {
      for (bool anchored : {true, false}) {
        AutoScored a = score_auto(config, dopt_plans.at(n), dopt_plans.at(n).tour,
                                  found_peaks(dopt_runs.at(n)), truth, anchored);
        fmt::print("{:>8} {:>9} {:>9.1f}% {:>11.1f}%  {} ({})\n", n, anchored ? "[model]" : "none",
                   a.mape_all, a.fit.cv_mape.value_or(-1), a.fit.description, a.fit.runner_up_description);
      }
    }
    for (bool anchored : {true, false}) {
      AutoScored a = score_auto(config, full, full.tour, found_peaks(full_run), truth, anchored);
      fmt::print("{:>8} {:>9} {:>9.1f}% {:>11.1f}%  {}   (full factorial)\n", 32,
                 anchored ? "[model]" : "none", a.mape_all, a.fit.cv_mape.value_or(-1), a.fit.description);
    }

    // 2. Sequential augmentation from each model's smallest D-optimal design.
    fmt::print("\n2. Sequential augmentation from the smallest D-optimal design until LOO MAPE <= 5%\n");
    fmt::print("{:>12} {:>8} {:>10} {:>10} {:>12}  added\n", "model", "points", "LOO MAPE", "MAPE-all",
               "cost (h)");
    for (const Choice& c : choices) {
      const SurfacePlan& plan = first_runs.at(c.label).first;
      const SurfaceRun& first = first_runs.at(c.label).second;
      std::vector<Eigen::Index> tour = plan.tour;
      std::vector<double> peaks = found_peaks(first);
      double cost = first.cost_s;
      std::string added = "-";
      for (;;) {
        Scored s = score(plan, tour, peaks, truth);
        fmt::print("{:>12} {:>8} {:>10} {:>9.1f}% {:>12.1f}  {}\n", c.label, tour.size(), loo_text(s.loo),
                   s.mape_all, cost / 3600, added);
        if ((s.loo && *s.loo <= 5.0) || tour.size() == static_cast<std::size_t>(plan.candidates.rows()))
          break;
        Design next = augment(plan.coded, plan.terms, tour, 1, 40, 1);
        Eigen::Index row = next.points.back();
        SurfaceRun one = bench.run(plan, {row}, false, 1);
        tour.push_back(row);
        peaks.push_back(found_peaks(one)[0]);
        cost += one.cost_s;
        added = plan.samples[static_cast<std::size_t>(row)].key();
      }
    }

    // 3. Cost vs the full factorial, with and without seeding [003 Fig. 8].
    fmt::print("\n3. Cost of the surface (machine time, hours; binsearch)\n");
    fmt::print("{:>22} {:>14} {:>14} {:>10}\n", "design", "no seeding", "seeding", "ratio");
    SurfaceRun full_seeded = bench.run(full, full.tour, true, 1);
    SurfaceRun dopt_seeded = bench.run(dopt_plans.at(8), dopt_plans.at(8).tour, true, 1);
    fmt::print("{:>22} {:>14.1f} {:>14.1f} {:>10.2f}\n", "full factorial (32)", full_run.cost_s / 3600,
               full_seeded.cost_s / 3600, full_seeded.cost_s / full_run.cost_s);
    fmt::print("{:>22} {:>14.1f} {:>14.1f} {:>10.2f}\n", "D-optimal (8)", dopt_runs.at(8).cost_s / 3600,
               dopt_seeded.cost_s / 3600, dopt_seeded.cost_s / dopt_runs.at(8).cost_s);
    fmt::print("{:>22} {:>14.2f} {:>14.2f}\n", "D-opt / full", dopt_runs.at(8).cost_s / full_run.cost_s,
               dopt_seeded.cost_s / full_seeded.cost_s);
    {
      Scored s = score(full, full.tour, found_peaks(full_seeded), truth);
      Scored d = score(dopt_plans.at(8), dopt_plans.at(8).tour, found_peaks(dopt_seeded), truth);
      fmt::print("{:>22} {:>13.1f}% {:>13.1f}%   (MAPE-all with seeding: full, D-opt 8)\n", "", s.mape_all,
                 d.mape_all);
    }

    // 4. Wall time on K slots (no seeding: the searches, hence the costs, do not depend on K).
    fmt::print("\n4. Wall time on K slots (virtual makespan, hours; real seconds of simulation)\n");
    fmt::print("{:>4} {:>16} {:>10} {:>16} {:>10} {:>10}\n", "K", "full: wall (h)", "speed-up",
               "D-opt8: wall (h)", "speed-up", "real (s)");
    double full1 = 0, dopt1 = 0;
    for (int k : {1, 2, 4}) {
      double real = 0;
      SurfaceRun f = bench.run(full, full.tour, false, k, &real);
      SurfaceRun d = bench.run(dopt_plans.at(8), dopt_plans.at(8).tour, false, k);
      if (k == 1) full1 = f.wall_s, dopt1 = d.wall_s;
      fmt::print("{:>4} {:>16.1f} {:>10.2f} {:>16.1f} {:>10.2f} {:>10.1f}\n", k, f.wall_s / 3600,
                 full1 / f.wall_s, d.wall_s / 3600, dopt1 / d.wall_s, real);
    }
    fs::remove_all(dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_surface: {}\n", e.what());
    return 1;
  }
  return 0;
}
