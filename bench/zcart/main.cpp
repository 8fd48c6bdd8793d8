// Benchmark: Z-CART training time and peak memory on 2.5M synthetic rows x 10 attributes
// against IRONModel's figures [000 §5.2.4] (3 min, 200 MB for 2.5M configurations, 0.02 ms per
// prediction), and, with no expectation prior, error and training time against scikit-learn's
// DecisionTreeRegressor at the same depth and minimum leaf size on the same data.
//
// Usage: bench_zcart [ROWS_A=2500000] [ROWS_B=1000000] [DEPTH=14] [MIN_LEAF=10]
// Phase A runs first so that the process's peak RSS (getrusage) is Z-CART's training peak,
// including its own copy of the observations; the synthetic rows are generated one at a time and
// never held as a double matrix. Phase B writes its data to /tmp for the sklearn peer
// (bench/zcart/sklearn_peer.py, run with /usr/bin/python3).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ctime>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/zcart.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Discrete attributes (levels 4..256) and a positive target with thresholds, an interaction and a
// smooth term, times up to ±10% noise.
class Generator {
 public:
  Generator(std::size_t attrs, std::uint64_t seed) : attrs_(attrs), rng_(seed) {}
  // Fills x[0..attrs) and returns the observed value; *expected gets a partial expectation model.
  double row(double* x, double* expected) {
    static const int kLevels[] = {4, 8, 16, 32, 64, 128, 256, 8, 16, 32};
    for (std::size_t j = 0; j < attrs_; ++j)
      x[j] = static_cast<double>(rng_() % static_cast<unsigned>(kLevels[j]));
    double f = 10 + 8 * (x[0] >= 2) + 0.1 * x[1] * (x[2] < 8) + 4 * std::sin(x[3] / 5.0) + 0.02 * x[4];
    if (attrs_ > 5) f += 3 * (x[5] > 100) + 0.01 * x[6] + 2 * (x[7] == 3) + 0.05 * x[8] * (x[9] > 16);
    *expected = 10 + 8 * (x[0] >= 2);
    double u = static_cast<double>(rng_() % 2000001) / 1000000.0 - 1.0;
    return f * (1 + 0.1 * u);
  }

 private:
  std::size_t attrs_;
  std::mt19937_64 rng_;
};

std::vector<wb::Attribute> schema(std::size_t attrs) {
  std::vector<wb::Attribute> s;
  for (std::size_t j = 0; j < attrs; ++j)
    s.push_back({fmt::format("a{}", j), wb::AttributeKind::kNumeric, {}});
  return s;
}

struct Fitted {
  double encode_s, fit_s, fit_cpu_s;
};

Fitted train(wb::ZCart& tree, std::size_t rows, std::size_t attrs, bool prior, std::uint64_t seed,
             const std::string& dump_prefix) {
  Generator gen(attrs, seed);
  wb::ObservationTable table(schema(attrs));
  table.reserve(rows);
  std::vector<double> x(attrs);
  std::ofstream fx, fy;
  if (!dump_prefix.empty()) {
    fx.open(dump_prefix + ".x", std::ios::binary);
    fy.open(dump_prefix + ".y", std::ios::binary);
  }
  auto t0 = Clock::now();
  for (std::size_t i = 0; i < rows; ++i) {
    double e;
    double y = gen.row(x.data(), &e);
    table.add(x.data(), prior ? e : 1.0, y);
    if (!dump_prefix.empty()) {
      fx.write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(attrs * sizeof(double)));
      fy.write(reinterpret_cast<const char*>(&y), sizeof y);
    }
  }
  double encode_s = seconds_since(t0);
  auto t1 = Clock::now();
  double c1 = cpu_seconds();
  tree.fit(std::move(table));
  return {encode_s, seconds_since(t1), cpu_seconds() - c1};
}

struct Accuracy {
  double rmse, predict_us, predict_full_us;
};

Accuracy evaluate(const wb::ZCart& tree, std::size_t rows, std::size_t attrs, bool prior, std::uint64_t seed,
                  const std::string& dump_prefix) {
  Generator gen(attrs, seed);
  std::vector<double> xs(rows * attrs), es(rows), ys(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    double e;
    ys[i] = gen.row(&xs[i * attrs], &e);
    es[i] = prior ? e : 1.0;
  }
  if (!dump_prefix.empty()) {
    std::ofstream(dump_prefix + ".x", std::ios::binary)
        .write(reinterpret_cast<const char*>(xs.data()),
               static_cast<std::streamsize>(xs.size() * sizeof(double)));
    std::ofstream(dump_prefix + ".y", std::ios::binary)
        .write(reinterpret_cast<const char*>(ys.data()),
               static_cast<std::streamsize>(ys.size() * sizeof(double)));
  }
  double se = 0;
  auto t0 = Clock::now();
  for (std::size_t i = 0; i < rows; ++i) {
    double p = tree.predict_value(&xs[i * attrs], es[i]);
    se += (p - ys[i]) * (p - ys[i]);
  }
  double fast_us = seconds_since(t0) / static_cast<double>(rows) * 1e6;
  std::size_t full_rows = std::min<std::size_t>(rows, 20000);
  std::vector<double> v(attrs);
  double sink = 0;
  auto t1 = Clock::now();
  for (std::size_t i = 0; i < full_rows; ++i) {
    v.assign(xs.begin() + static_cast<std::ptrdiff_t>(i * attrs),
             xs.begin() + static_cast<std::ptrdiff_t>((i + 1) * attrs));
    sink += static_cast<double>(tree.predict(v, es[i]).rule.size());
  }
  double full_us = seconds_since(t1) / static_cast<double>(full_rows) * 1e6;
  if (sink < 0) std::puts("");
  return {std::sqrt(se / static_cast<double>(rows)), fast_us, full_us};
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t rows_a = argc > 1 ? std::stoul(argv[1]) : 2500000;
  std::size_t rows_b = argc > 2 ? std::stoul(argv[2]) : 1000000;
  int depth = argc > 3 ? std::stoi(argv[3]) : 14;
  int min_leaf = argc > 4 ? std::stoi(argv[4]) : 10;
  const std::size_t test_rows = 200000;

  // Phase A: 2.5M x 10 with an expectation prior. Each criterion trains in a forked child so that
  // its getrusage peak RSS is its own (the parent holds ~3 MB at fork time).
  // The figures mean something only from an optimized build (the project's default build type,
  // RelWithDebInfo, is -O2).
  fmt::print("build type {}{}\n", WB_BUILD_TYPE,
             std::string_view(WB_BUILD_TYPE) == "Debug" || std::string_view(WB_BUILD_TYPE).empty()
                 ? " (NOT optimized: these figures are not the benchmark's)"
                 : "");
  fmt::print("== Phase A: Z-CART training on {} rows x 10 attributes (depth {}, min_leaf {}) ==\n", rows_a,
             depth, min_leaf);
  fmt::print("wall seconds on this shared machine; CPU = the process's own CPU time for fit()\n");
  fmt::print("{:<20} {:>8} {:>8} {:>8} {:>7} {:>10} {:>7} {:>12} {:>8} {:>7}\n", "criterion", "encode s",
             "fit s", "fit CPU", "goal s", "IRONModel", "ratio", "peak RSS MB", "goal MB", "ratio");
  std::fflush(stdout);
  for (auto crit : {wb::SplitCriterion::kLogRatioVariance, wb::SplitCriterion::kInfoGain}) {
    pid_t pid = fork();
    if (pid == 0) {
      wb::ZCartOptions opt;
      opt.criterion = crit;
      opt.max_depth = depth;
      opt.min_leaf = min_leaf;
      wb::ZCart tree(schema(10), opt);
      auto f = train(tree, rows_a, 10, true, 1, "");
      double total = f.encode_s + f.fit_s, peak = peak_rss_mb();
      fmt::print("{:<20} {:>8.2f} {:>8.2f} {:>8.2f} {:>7} {:>10} {:>7.3f} {:>12.0f} {:>8} {:>7.3f}\n",
                 wb::to_string(crit), f.encode_s, f.fit_s, f.fit_cpu_s, 10, 180, total / 10.0, peak, 200,
                 peak / 200.0);
      auto acc = evaluate(tree, test_rows, 10, true, 2, "");
      fmt::print(
          "   tree: {} nodes, depth {}, test RMSE {:.4f}; prediction: full predict() with rule text {:.3f} us"
          " vs goal 2 us (ratio {:.3f}), IRONModel 20 us; predict_value() {:.3f} us\n",
          tree.node_count(), tree.depth(), acc.rmse, acc.predict_full_us, acc.predict_full_us / 2.0,
          acc.predict_us);
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fmt::print("phase A child for {} failed\n", wb::to_string(crit));
      return 1;
    }
  }

  // Phase B: no prior, ratio variance (= least squares CART) vs sklearn on the same rows.
  const std::size_t attrs_b = 5;
  fmt::print("\n== Phase B: no prior, {} rows x {} attributes, depth {}, min_leaf {}: Z-CART vs sklearn ==\n",
             rows_b, attrs_b, depth, min_leaf);
  wb::ZCartOptions opt;
  opt.criterion = wb::SplitCriterion::kRatioVariance;
  opt.max_depth = depth;
  opt.min_leaf = min_leaf;
  opt.min_gain = 0;
  wb::ZCart tree(schema(attrs_b), opt);
  const std::string prefix = "/tmp/bench_zcart";
  auto f = train(tree, rows_b, attrs_b, false, 3, prefix + ".train");
  auto acc = evaluate(tree, test_rows, attrs_b, false, 4, prefix + ".test");
  std::string cmd = fmt::format("/usr/bin/python3 {}/sklearn_peer.py {} {} {} {}", WB_BENCH_DIR, prefix,
                                attrs_b, depth, min_leaf);
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  for (const char* suffix : {".train.x", ".train.y", ".test.x", ".test.y"})
    std::remove((prefix + suffix).c_str());
  nlohmann::json sk;
  try {
    sk = nlohmann::json::parse(out);
  } catch (const std::exception&) {
    fmt::print("sklearn peer failed (is python3-sklearn installed?): {}\n", out);
    return 1;
  }
  fmt::print("{:<12} {:>10} {:>10} {:>8} {:>7} {:>12}\n", "", "fit s", "test RMSE", "leaves", "depth",
             "predict us");
  fmt::print("(Z-CART fit CPU time {:.2f} s)\n", f.fit_cpu_s);
  std::size_t leaves = 0;
  for (const auto& nd : tree.nodes()) leaves += nd.attr < 0;
  fmt::print("{:<12} {:>10.2f} {:>10.5f} {:>8} {:>7} {:>12.3f}   (+ {:.2f} s encoding)\n", "Z-CART", f.fit_s,
             acc.rmse, leaves, tree.depth(), acc.predict_us, f.encode_s);
  fmt::print("{:<12} {:>10.2f} {:>10.5f} {:>8} {:>7} {:>12.3f}\n", "sklearn", sk["fit_s"].get<double>(),
             sk["rmse"].get<double>(), sk["leaves"].get<int>(), sk["depth"].get<int>(),
             sk["predict_us"].get<double>());
  fmt::print("{:<12} {:>10.3f} {:>10.5f}   (goal: time ratio <= 0.5 incl. encoding: {:.3f}; RMSE ratio 1)\n",
             "ratio", f.fit_s / sk["fit_s"].get<double>(), acc.rmse / sk["rmse"].get<double>(),
             (f.fit_s + f.encode_s) / sk["fit_s"].get<double>());
  return 0;
}
