// Z-CART over attributes beyond the factors [000 §3.3.1]: workload attributes and derived metrics of
// the expectation model, known for samples nobody measured; a deviation that follows a derived
// attribute is learned as one split on it, rule paths and the mismatch ranking name it, and probe
// planning maps it back to the factors it depends on.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/config.hpp"
#include "core/stats.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/expectation_zcart.hpp"
#include "experiment/zcart_attributes.hpp"
#include "models/mismatch.hpp"
#include "models/probe_plan.hpp"
#include "models/zcart.hpp"
#include "store/store.hpp"
#include "tests/support/found_search.hpp"

using namespace wb;
namespace fs = std::filesystem;

namespace {

const std::string kSource = WB_SOURCE_DIR;

std::vector<std::string> names(const std::vector<Attribute>& schema) {
  std::vector<std::string> out;
  for (const auto& a : schema) out.push_back(a.name);
  return out;
}

std::size_t index_of(const ZCartAttributes& a, const std::string& name) {
  for (std::size_t i = 0; i < a.schema().size(); ++i)
    if (a.schema()[i].name == name) return i;
  FAIL("no attribute " << name);
  return 0;
}

Sample sample(const std::string& disks, const std::string& threads) {
  Sample s;
  s.set("disks", disks);
  s.set("threads", threads);
  return s;
}

}  // namespace

TEST_CASE("a deviation that follows threads per disk is learned as a split on the derived nfsd_per_disk") {
  Config config = Config::load(kSource + "/configs/sim.toml");
  ZCartAttributes attributes(config);
  // sim.toml: factors disks and threads, a [model] with a pool nfsd of {threads} around {disks} disks.
  CHECK(names(attributes.schema()) ==
        std::vector<std::string>{"disks", "threads", "expected_peak", "bottleneck", "bottleneck_util",
                                 "nfsd_per_disk", "nfsd_lambda_max", "disk_lambda_max"});
  const std::size_t ratio_at = index_of(attributes, "nfsd_per_disk");
  const std::size_t peak_at = index_of(attributes, "expected_peak");
  CHECK(attributes.factors_of(ratio_at) == std::vector<std::string>{"disks", "threads"});
  CHECK(attributes.factors_of(0) == std::vector<std::string>{"disks"});
  // The disks saturate at disks / (0.8 visits x 15 ms); the CPUs (2, 1 ms: constant) have none.
  const std::size_t disk_max = index_of(attributes, "disk_lambda_max");
  CHECK(attributes.factors_of(disk_max) == std::vector<std::string>{"disks"});
  CHECK(attributes.factors_of(index_of(attributes, "nfsd_lambda_max")) ==
        std::vector<std::string>{"disks", "threads"});
  for (const char* disks : {"1", "3"}) {
    auto v = attributes.encode(sample(disks, "100"));
    REQUIRE(v);
    CHECK((*v)[disk_max] == Approx(std::stod(disks) * 1000 / (0.8 * 15)).epsilon(1e-6));
  }

  // Truth: λ* collapses to 40% of the expectation when threads / disks > 8, a boundary no single
  // split on disks or threads draws. Three samples are kept out: the tree never sees them.
  const std::set<std::string> unmeasured{"disks=3,threads=64", "disks=1,threads=8", "disks=4,threads=4"};
  auto truth = [](const std::vector<double>& v, double expected, std::size_t at) {
    return v[at] > 8 ? 0.4 * expected : expected;
  };
  ZCartOptions options;
  options.min_leaf = 3;
  ZCart tree(attributes.schema(), options);
  std::vector<ClassifiedObservation> classified;
  for (const auto& d : config.factors()[0].levels) {
    for (const auto& t : config.factors()[1].levels) {
      Sample s = sample(d, t);
      if (unmeasured.count(s.key()) != 0) continue;
      std::optional<std::vector<double>> v = attributes.encode(s);
      REQUIRE(v);
      REQUIRE(v->size() == attributes.schema().size());
      CHECK((*v)[ratio_at] == std::stod(t) / std::stod(d));
      const double expected = (*v)[peak_at];
      const double observed = truth(*v, expected, ratio_at);
      tree.add(Observation{*v, expected, observed});
      classified.push_back(
          ClassifiedObservation{*v, is_mismatch(expected, {observed, observed, observed}, 0.15)});
    }
  }
  INFO(tree.describe());
  // One split, on the derived attribute, at the boundary: midway between 8 and the next ratio
  // measured above it, 32 threads on 3 disks.
  REQUIRE(tree.node_count() == 3);
  CHECK(tree.nodes()[0].attr == static_cast<int>(ratio_at));
  CHECK(tree.nodes()[0].threshold == Approx((8 + 32.0 / 3) / 2));
  CHECK(tree.describe().find("nfsd_per_disk > 9.33333") != std::string::npos);

  // Unmeasured samples: their attributes come from the config and the model alone.
  for (const auto& key : unmeasured) {
    Sample s = parse_sample(key, config.factors(), Sample{});
    std::optional<std::vector<double>> v = attributes.encode(s);
    REQUIRE(v);
    const double expected = (*v)[peak_at];
    ZCartPrediction p = tree.predict(*v, expected);
    INFO(key);
    CHECK(p.rule == ((*v)[ratio_at] > 8 ? "nfsd_per_disk > 9.33333" : "nfsd_per_disk <= 9.33333"));
    CHECK(p.value == Approx(truth(*v, expected, ratio_at)).epsilon(1e-12));
  }

  // The mismatch record's ranking names it first, strictly above every factor.
  std::vector<RankedAttribute> ranked = rank_attributes(attributes.schema(), classified);
  REQUIRE(ranked.size() == attributes.schema().size());
  CHECK(ranked[0].name == "nfsd_per_disk");
  for (const auto& r : ranked)
    if (r.name == "disks" || r.name == "threads") CHECK(r.gain < ranked[0].gain);

  // Probes vary factors: the derived attribute maps back to disks and threads (in their own rank
  // order), so the top two probe attributes are both factors it depends on.
  std::vector<RankedAttribute> for_probes = probe_ranking(attributes, ranked);
  REQUIRE(for_probes.size() == 2);
  std::set<std::string> factors{for_probes[0].name, for_probes[1].name};
  CHECK(factors == std::set<std::string>{"disks", "threads"});
  CHECK(for_probes[0].gain == ranked[0].gain);
  auto rank_of = [&](const std::string& n) {
    return std::find_if(ranked.begin(), ranked.end(), [&](const RankedAttribute& r) { return r.name == n; }) -
           ranked.begin();
  };
  CHECK(rank_of(for_probes[0].name) < rank_of(for_probes[1].name));
  std::set<std::string> varied;
  for (const auto& p : plan_probes(sample("3", "64"), for_probes, config.factors(), {}, 2, 1))
    varied.insert(p.attribute);
  CHECK(varied == std::set<std::string>{"disks", "threads"});
  // The raw ranking would spend one of the two places on an attribute no probe can vary.
  varied.clear();
  for (const auto& p : plan_probes(sample("3", "64"), ranked, config.factors(), {}, 2, 1))
    varied.insert(p.attribute);
  CHECK(varied.size() == 1);
}

TEST_CASE("workload attributes come from [model.attributes] and the mix files, for any level") {
  Config config = Config::load(kSource + "/configs/demo.toml");
  ZCartAttributes attributes(config);
  // Factors in the config's order (its [factors] table sorted by name), then the workload
  // attributes, then the derived metrics.
  CHECK(names(attributes.schema()) ==
        std::vector<std::string>{"cpus", "disks", "mix", "threads", "disk_ms", "disk_visits", "read_fraction",
                                 "write_fraction", "sequential_fraction", "mean_size_bytes", "expected_peak",
                                 "bottleneck", "bottleneck_util", "workers_per_disk", "workers_lambda_max",
                                 "disk_lambda_max"});
  CHECK(attributes.factors_of(index_of(attributes, "read_fraction")) == std::vector<std::string>{"mix"});
  CHECK(attributes.factors_of(index_of(attributes, "disk_ms")) == std::vector<std::string>{"mix"});
  // cpus does not enter the model (--cpu-mode sleep).
  CHECK(attributes.factors_of(index_of(attributes, "expected_peak")) ==
        std::vector<std::string>{"disks", "mix", "threads"});
  CHECK(attributes.factors_of(index_of(attributes, "workers_per_disk")) ==
        std::vector<std::string>{"disks", "threads"});
  CHECK(attributes.schema()[index_of(attributes, "bottleneck")].categories ==
        std::vector<std::string>{"workers", "cpu", "disk", "net"});

  Sample s = parse_sample("mix=db_tp,cpus=0,threads=8,disks=2", config.factors(), Sample{});
  std::optional<std::vector<double>> v = attributes.encode(s);
  REQUIRE(v);
  auto at = [&](const std::string& n) { return (*v)[index_of(attributes, n)]; };
  CHECK(at("mix") == 0);
  CHECK(at("cpus") == 1);
  CHECK(at("disk_visits") == 1.0);
  CHECK(at("disk_ms") == 4.86);
  // rpc_db_tp.toml: reads 64, random writes 32, sequential 256 KB writes 4 (weights).
  CHECK(at("read_fraction") == Approx(0.64));
  CHECK(at("write_fraction") == Approx(0.36));
  CHECK(at("sequential_fraction") == Approx(0.04));
  CHECK(at("mean_size_bytes") == Approx((64 * 8192 + 32 * 8192 + 4 * 262144) / 100.0));
  CHECK(at("workers_per_disk") == 4);
  CHECK(at("expected_peak") > 0);
  CHECK(at("bottleneck_util") > 0);
  CHECK(at("bottleneck_util") <= 1);
  // Another level of the mix changes its attributes and nothing else's.
  std::optional<std::vector<double>> web =
      attributes.encode(parse_sample("mix=web,cpus=0,threads=8,disks=2", config.factors(), Sample{}));
  REQUIRE(web);
  CHECK((*web)[index_of(attributes, "read_fraction")] == Approx(0.9));
  CHECK((*web)[index_of(attributes, "sequential_fraction")] == Approx(0.9));
  CHECK((*web)[index_of(attributes, "workers_per_disk")] == 4);

  // A sample without every factor, or with an undeclared level of a categorical one, has no
  // attributes; a numeric factor between its levels has its value (whatif asks about such points).
  Sample partial;
  partial.set("mix", "web");
  CHECK_FALSE(attributes.encode(partial));
  Sample unknown = s;
  unknown.set("mix", "nosuch");
  CHECK_FALSE(attributes.encode(unknown));
  Sample between = s;
  between.set("threads", "3");
  auto b = attributes.encode(between);
  REQUIRE(b);
  CHECK((*b)[index_of(attributes, "threads")] == 3);
}

TEST_CASE("mix files that cannot be read leave out only the mix attributes") {
  // The demo config copied away from the source tree: its mix path ({source}/workloads/...) then
  // names files that do not exist; the config still works, with [model.attributes] kept.
  fs::path dir = fs::temp_directory_path() / ("wb_zcart_attrs_" + std::to_string(getpid())) / "configs";
  fs::create_directories(dir);
  fs::copy_file(kSource + "/configs/demo.toml", dir / "demo.toml", fs::copy_options::overwrite_existing);
  Config config = Config::load((dir / "demo.toml").string());
  ZCartAttributes attributes(config);
  CHECK(names(attributes.schema()) == std::vector<std::string>{"cpus", "disks", "mix", "threads", "disk_ms",
                                                               "disk_visits", "expected_peak", "bottleneck",
                                                               "bottleneck_util", "workers_per_disk",
                                                               "workers_lambda_max", "disk_lambda_max"});
  CHECK(attributes.encode(parse_sample("mix=mail,cpus=0-1,threads=16,disks=4", config.factors(), Sample{})));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a sample measured twice is one Z-CART observation at the geometric mean of its λ*") {
  Config config = Config::load(kSource + "/configs/sim.toml");
  const fs::path dir = fs::temp_directory_path() / ("wb_zcart_dup_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    store::Store store((dir / "w.db").string());
    // disks=1,threads=64 twice (a surface point and a probe), disks=4,threads=8 once.
    auto found = [&](const Sample& s, double measured, double expected) {
      wb::test::store_found_search(store, config.name(), s, measured, expected);
    };
    found(sample("1", "64"), 50, 80);
    found(sample("4", "8"), 190, 200);
    found(sample("1", "64"), 72, 80);
    const std::vector<Observation> obs =
        zcart_observations(config, measured_vs_expected(store, config.name()));
    REQUIRE(obs.size() == 2);
    CHECK(obs[0].observed == Approx(std::sqrt(50.0 * 72.0)));
    CHECK(obs[0].expected == 80);
    CHECK(obs[1].observed == 190);

    // The persisted tree counts the sample once, and a third search of it moves its λ*: the tree
    // brought up to date holds the new mean, not the stale one.
    ZCartOptions options;
    options.min_leaf = 1;
    ZCart tree = update_zcart(store, config, options).tree;
    CHECK(tree.observation_count() == 2);
    found(sample("1", "64"), 40, 80);
    ProbeConfig probing;
    probing.tolerance = options.tolerance;
    probing.min_leaf = 1;
    std::optional<ZCart> now =
        current_zcart(store, config, probing, measured_vs_expected(store, config.name()));
    REQUIRE(now);
    CHECK(now->observation_count() == 2);
    std::optional<std::vector<double>> v = encode_sample(config, sample("1", "64"));
    REQUIRE(v);
    CHECK(now->predict(*v, 80).value == Approx(std::cbrt(50.0 * 72.0 * 40.0)));
  }
  fs::remove_all(dir);
}

TEST_CASE("answers carry 90% prediction intervals: agreeing samples are not certainty, repeats count once") {
  Config config = Config::load(kSource + "/configs/sim.toml");  // [peak] target 95/90
  const fs::path dir = fs::temp_directory_path() / ("wb_zcart_interval_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    store::Store store((dir / "w.db").string());
    // Four samples, each measured at exactly half its expectation; the first one twice.
    const std::vector<Sample> seen{sample("1", "8"), sample("2", "8"), sample("3", "8"), sample("4", "8")};
    for (const Sample& s : seen) wb::test::store_found_search(store, config.name(), s, 50, 100);
    wb::test::store_found_search(store, config.name(), seen[0], 50, 100);
    const auto rows = measured_vs_expected(store, config.name());

    // The prior: a found λ* within 10% at 95% confidence, sd 0.1 / 1.96 in log λ*, worth 2.
    const SpreadPrior prior = answer_prior(config);
    CHECK(prior.sd == Approx(0.1 / 1.959964).epsilon(1e-5));
    CHECK(prior.df == 2);

    // Z-CART: one leaf of four identical ratios. Its spread is zero, yet the interval is the
    // prior's: t(0.95, 2 + 4 - 1) sqrt(2 sd² / 5) sqrt(1 + 1/4) in log λ*.
    ZCartAnswer z = zcart_answer(config, rows, sample("2", "16"), 120);
    CHECK(z.n == 4);
    CHECK(z.value == Approx(60));
    REQUIRE(z.low);
    REQUIRE(z.high);
    const double h = t_quantile(0.90, 5) * std::sqrt(2 * prior.sd * prior.sd / 5) * std::sqrt(1.25);
    CHECK(std::log(*z.high / z.value) == Approx(h).epsilon(1e-6));
    CHECK(std::log(z.value / *z.low) == Approx(h).epsilon(1e-6));

    // The expectation: four distinct samples (the repeat merged), each off by log 2.
    Fidelity f = expectation_fidelity(rows);
    CHECK(f.n == 4);
    REQUIRE(f.value);
    CHECK(*f.value == 0);
    CHECK(f.log_gap_ss == Approx(4 * std::log(2.0) * std::log(2.0)));
  }
  fs::remove_all(dir);
}
