#include <algorithm>
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "models/zcart.hpp"
#include "tests/zcart/zcart_schema.hpp"

using wb::test::schema3;

namespace {

// Expectation model: throughput = 100 * threads / (threads + disks). Truth deviates:
// observed = expected * 0.5 when threads > 32, and * 0.7 on vendorC switches with disks <= 2.
std::vector<Observation> step_data(int n, std::uint32_t seed, bool categorical_effect) {
  std::mt19937_64 rng(seed);
  const double threads[] = {1, 2, 4, 8, 16, 32, 64, 128};
  std::vector<Observation> out;
  for (int i = 0; i < n; ++i) {
    double t = threads[rng() % 8], d = static_cast<double>(1 + rng() % 4), s = static_cast<double>(rng() % 3);
    double expected = 100.0 * t / (t + d);
    double factor = t > 32 ? 0.5 : 1.0;
    if (categorical_effect && s == 2 && d <= 2) factor *= 0.7;
    double noise = 1.0 + 0.02 * (static_cast<double>(rng() % 1000) / 1000.0 - 0.5);
    out.push_back({{t, d, s}, expected, expected * factor * noise});
  }
  return out;
}

}  // namespace

TEST_CASE("empty zcart predicts the expectation model with zero training") {
  ZCart t(schema3());
  auto p = t.predict({64, 2, 1}, 42.0);
  CHECK(p.value == 42.0);
  CHECK(p.correction == 1.0);
  CHECK(p.n == 0);
  CHECK(std::isnan(p.fidelity));
  CHECK(p.rule.empty());
  CHECK(t.node_count() == 1);
}

TEST_CASE("zcart finds a step deviation on the right attribute and threshold") {
  for (auto crit :
       {SplitCriterion::kInfoGain, SplitCriterion::kLogRatioVariance, SplitCriterion::kRatioVariance}) {
    ZCartOptions opt;
    opt.criterion = crit;
    // Variance criteria: a gain floor above what the 2% noise offers (info gain ignores noise
    // within tolerance by construction).
    if (crit != SplitCriterion::kInfoGain) opt.min_gain = 1e-3;
    ZCart t(schema3(), opt);
    t.fit(step_data(2000, 7, false));
    CAPTURE(wb::to_string(crit), t.describe());
    const auto& root = t.nodes()[0];
    REQUIRE(root.attr == 0);
    // Midway between the levels either side of the step, 32 and 64 (as rpart and scikit-learn).
    CHECK(root.threshold == 48);
    auto hi = t.predict({64, 1, 0}, 10.0);
    CHECK(hi.rule == "threads > 48");
    CHECK(hi.correction == Approx(0.5).epsilon(0.01));
    CHECK(hi.value == Approx(5.0).epsilon(0.01));
    CHECK(hi.fidelity == 1.0);
    CHECK(hi.spread > 0);
    CHECK(hi.spread < 0.1);
    auto lo = t.predict({8, 1, 0}, 10.0);
    CHECK(lo.rule == "threads <= 48");
    CHECK(lo.correction == Approx(1.0).epsilon(0.01));
    CHECK(hi.n + lo.n == 2000);
    // The tolerance band absorbs the 2% noise: no further splits.
    CHECK(t.node_count() == 3);
  }
}

TEST_CASE("zcart splits on a categorical attribute and reports the rule path") {
  ZCart t(schema3());
  t.fit(step_data(4000, 11, true));
  INFO(t.describe());
  auto p = t.predict({8, 1, 2}, 1.0);
  CHECK(p.correction == Approx(0.7).epsilon(0.02));
  CHECK(p.rule.find("threads <= 48") != std::string::npos);
  CHECK(p.rule.find("switch in {vendorC}") != std::string::npos);
  CHECK(p.rule.find("disks <= 2.5") != std::string::npos);
  auto q = t.predict({8, 1, 0}, 1.0);
  CHECK(q.correction == Approx(1.0).epsilon(0.02));
  CHECK(q.rule.find("switch not in {vendorC}") != std::string::npos);
  auto r = t.predict({8, 4, 2}, 1.0);
  CHECK(r.correction == Approx(1.0).epsilon(0.02));
  // A category index the split never saw on its left goes right.
  auto h = t.predict({128, 1, 2}, 1.0);
  CHECK(h.correction == Approx(0.35).epsilon(0.02));
}

TEST_CASE("zcart fidelity counts observations within tolerance of the leaf prediction") {
  std::vector<Attribute> schema{{"x", AttributeKind::kNumeric, {}}};
  ZCartOptions opt;
  opt.tolerance = 0.1;
  ZCart t(schema, opt);
  // One leaf (constant attribute): ratios 1.0 x8, 2.0 x2, 1.2 x10 -> mean ratio 1.2.
  std::vector<Observation> obs;
  for (int i = 0; i < 8; ++i) obs.push_back({{1}, 1.0, 1.0});
  for (int i = 0; i < 2; ++i) obs.push_back({{1}, 1.0, 2.0});
  for (int i = 0; i < 10; ++i) obs.push_back({{1}, 2.0, 2.4});
  t.fit(obs);
  auto p = t.predict({1}, 2.0);
  CHECK(p.n == 20);
  CHECK(p.correction == Approx(1.2));
  CHECK(p.value == Approx(2.4));
  // |1.2 - 1.0| > 0.1*1.0 (8 miss), |1.2 - 2| > 0.2 (2 miss), |1.2 - 1.2| <= 0.12 (10 match)
  CHECK(p.fidelity == Approx(10.0 / 20.0));
  CHECK(t.nodes()[0].fidelity_count == 10);
  std::uint64_t hist_total = 0;
  for (auto [band, count] : t.nodes()[0].histogram) hist_total += count;
  CHECK(hist_total == 20);
  // Bands are 2*ln(1.1) = 0.19 wide in log ratio: 1.0 -> 0, 1.2 -> round(0.957) = 1, 2.0 -> round(3.64) = 4.
  CHECK(t.nodes()[0].histogram.at(0) == 8);
  CHECK(t.nodes()[0].histogram.at(1) == 10);
  CHECK(t.nodes()[0].histogram.at(4) == 2);
}

TEST_CASE("zcart respects min_leaf, min_gain and max_depth") {
  auto data = step_data(2000, 3, true);
  SECTION("min_leaf") {
    ZCartOptions opt;
    opt.min_leaf = 300;
    ZCart t(schema3(), opt);
    t.fit(data);
    for (const auto& nd : t.nodes())
      if (nd.attr < 0) CHECK(nd.n >= 300);
  }
  SECTION("min_leaf larger than half the data forbids any split") {
    ZCartOptions opt;
    opt.min_leaf = 1001;
    ZCart t(schema3(), opt);
    t.fit(data);
    CHECK(t.node_count() == 1);
  }
  SECTION("min_gain above the best gain forbids any split") {
    ZCartOptions opt;
    opt.min_gain = 1.01;  // information gain of a binary class is at most 1 bit
    ZCart t(schema3(), opt);
    t.fit(data);
    CHECK(t.node_count() == 1);
  }
  SECTION("max_depth") {
    ZCartOptions opt;
    opt.max_depth = 1;
    ZCart t(schema3(), opt);
    t.fit(data);
    CHECK(t.depth() == 1);
    CHECK(t.node_count() == 3);
  }
}

TEST_CASE("zcart trees built from permutations of the same observations are identical") {
  for (auto crit :
       {SplitCriterion::kInfoGain, SplitCriterion::kLogRatioVariance, SplitCriterion::kRatioVariance}) {
    ZCartOptions opt;
    opt.criterion = crit;
    opt.min_leaf = 2;
    opt.min_gain = 0;
    opt.max_bins = 4;  // also exercises equal-count binning
    // Random targets: many near-tied splits, a deep tree.
    std::mt19937_64 rng(99);
    std::vector<Observation> data;
    for (int i = 0; i < 3000; ++i)
      data.push_back(
          {{static_cast<double>(rng() % 50), static_cast<double>(rng() % 7), static_cast<double>(rng() % 3)},
           1.0 + static_cast<double>(rng() % 5),
           0.5 + static_cast<double>(rng() % 1000) / 100.0});
    ZCart ref(schema3(), opt);
    ref.fit(data);
    REQUIRE(ref.node_count() > 50);
    std::string text = ref.describe();
    for (std::uint32_t seed = 1; seed <= 4; ++seed) {
      auto shuffled = data;
      std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(seed));
      ZCart t(schema3(), opt);
      t.fit(shuffled);
      CHECK(t.describe() == text);
      for (const auto& o : data) {
        auto a = ref.predict(o.values, o.expected), b = t.predict(o.values, o.expected);
        REQUIRE(a.value == b.value);  // bit-identical
        REQUIRE(a.fidelity == b.fidelity);
        REQUIRE(a.spread == b.spread);
        REQUIRE(a.rule == b.rule);
      }
    }
  }
}

TEST_CASE("zcart incremental add learns the deviation and retrain equals batch fit") {
  auto data = step_data(3000, 21, true);
  ZCart inc(schema3());
  for (const auto& o : data) inc.add(o);
  INFO(inc.describe());
  CHECK(inc.observation_count() == 3000);
  // Every leaf was retrained recently enough: the learned corrections hold.
  CHECK(inc.predict({64, 3, 0}, 1.0).correction == Approx(0.5).epsilon(0.02));
  CHECK(inc.predict({8, 1, 2}, 1.0).correction == Approx(0.7).epsilon(0.02));
  CHECK(inc.predict({8, 3, 1}, 1.0).correction == Approx(1.0).epsilon(0.02));
  std::uint64_t total = 0;
  for (const auto& nd : inc.nodes())
    if (nd.attr < 0) total += nd.n;
  CHECK(total == 3000);

  ZCart batch(schema3());
  auto shuffled = data;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(5));
  batch.fit(shuffled);
  inc.retrain();
  CHECK(inc.describe() == batch.describe());
}

TEST_CASE("zcart incremental retraining respects max_depth and min_leaf below the retrained leaf") {
  ZCartOptions opt;
  opt.max_depth = 2;
  opt.min_leaf = 20;
  opt.criterion = SplitCriterion::kRatioVariance;
  opt.min_gain = 0;
  ZCart t(schema3(), opt);
  for (const auto& o : step_data(3000, 23, true)) t.add(o);
  INFO(t.describe());
  CHECK(t.depth() == 2);
  for (const auto& nd : t.nodes())
    if (nd.attr < 0) CHECK(nd.trained_n >= 20);
}

TEST_CASE("zcart incremental equals batch when the first observations already show the structure") {
  // The first four observations (threads 32, 64, 16, 128) already put the split at threads > 32,
  // the batch tree's root split; later observations only land in (pure) leaves. This is the
  // documented condition under which the incremental tree equals the batch tree.
  const double threads[] = {32, 64, 16, 128, 1, 2, 4, 8};
  std::vector<Observation> data;
  std::mt19937_64 rng(17);
  for (int i = 0; i < 800; ++i) {
    double t = threads[i % 8], d = static_cast<double>(1 + i % 4), s = static_cast<double>(i % 3);
    double noise = 1.0 + 0.02 * (static_cast<double>(rng() % 1000) / 1000.0 - 0.5);
    data.push_back({{t, d, s}, 10.0, 10.0 * (t > 32 ? 0.5 : 1.0) * noise});
  }
  ZCartOptions opt;
  opt.min_leaf = 2;
  opt.retrain_growth = 0;  // retrain the leaf on every add
  ZCart inc(schema3(), opt);
  for (const auto& o : data) inc.add(o);
  ZCart batch(schema3(), opt);
  batch.fit(data);
  INFO(batch.describe());
  CHECK(batch.node_count() == 3);
  CHECK(inc.describe() == batch.describe());
  for (const auto& o : data) {
    auto a = inc.predict(o.values, o.expected), b = batch.predict(o.values, o.expected);
    REQUIRE(a.value == b.value);
    REQUIRE(a.fidelity == b.fidelity);
  }
}

TEST_CASE("zcart JSON round trip preserves predictions, text and incremental state") {
  ZCart t(schema3());
  t.fit(step_data(2000, 13, true));
  auto j = t.to_json();
  ZCart u = ZCart::from_json(nlohmann::json::parse(j.dump()));
  CHECK(u.describe() == t.describe());
  for (const auto& o : step_data(200, 14, true)) {
    auto a = t.predict(o.values, o.expected), b = u.predict(o.values, o.expected);
    REQUIRE(a.value == b.value);
    REQUIRE(a.fidelity == b.fidelity);
    REQUIRE(a.rule == b.rule);
  }
  u.retrain();
  CHECK(u.describe() == t.describe());
  auto compact = t.to_json(false);
  CHECK_FALSE(compact.contains("observations"));
  ZCart v = ZCart::from_json(compact);
  CHECK(v.predict({64, 1, 0}, 1.0).value == t.predict({64, 1, 0}, 1.0).value);
  // Without observations the persisted leaves keep their statistics: adds are counted, no retrain.
  auto before = v.predict({64, 1, 0}, 1.0);
  for (int i = 0; i < 100; ++i) v.add({{64, 1, 0}, 1.0, 0.5});
  auto after = v.predict({64, 1, 0}, 1.0);
  CHECK(after.n == before.n + 100);
  CHECK(after.correction == Approx(0.5).epsilon(0.02));
  CHECK(v.node_count() == t.node_count());
  nlohmann::json bad = j;
  bad["nodes"][0]["left"] = 0;
  CHECK_THROWS_AS(ZCart::from_json(bad), wb::InputError);
  CHECK_THROWS_AS(ZCart::from_json(nlohmann::json::object()), wb::InputError);
}

TEST_CASE("zcart rejects observations that do not fit the schema") {
  ZCart t(schema3());
  CHECK_THROWS_AS(t.add({{1, 2}, 1.0, 1.0}), wb::InputError);
  CHECK_THROWS_AS(t.add({{1, 2, 3}, 1.0, 1.0}), wb::InputError);  // category 3 of 3
  CHECK_THROWS_AS(t.add({{1, 2, 0}, 0.0, 1.0}), wb::InputError);  // expected 0
  CHECK_THROWS_AS(t.add({{1, 2, 0}, 1.0, -1.0}), wb::InputError);
  CHECK_THROWS_AS(t.add({{NAN, 2, 0}, 1.0, 1.0}), wb::InputError);
  CHECK(t.observation_count() == 0);
  ZCartOptions bad;
  bad.min_leaf = 0;
  CHECK_THROWS_AS(ZCart(schema3(), bad), wb::InputError);
}

namespace {

// Observations whose structure only shows as they accumulate: a step at threads > 32, a
// categorical effect on vendorC with disks <= 2, and 5% noise, so add() keeps revising splits.
std::vector<Observation> growing_data(int n, std::uint32_t seed) {
  auto data = step_data(n, seed, true);
  std::mt19937_64 rng(seed + 1000);
  for (auto& o : data) o.observed *= 1.0 + 0.1 * (static_cast<double>(rng() % 1000) / 1000.0 - 0.5);
  return data;
}

void require_same_tree(const ZCart& a, const ZCart& b, const std::vector<Observation>& probe_points) {
  REQUIRE(a.describe() == b.describe());
  REQUIRE(a.to_json(false) == b.to_json(false));  // every node, in the same numbering
  for (const auto& o : probe_points) {
    auto x = a.predict(o.values, o.expected), y = b.predict(o.values, o.expected);
    REQUIRE(x.value == y.value);  // bit-identical
    REQUIRE(x.spread == y.spread);
    REQUIRE((x.fidelity == y.fidelity || (std::isnan(x.fidelity) && std::isnan(y.fidelity))));
    REQUIRE(x.rule == y.rule);
  }
}

}  // namespace

TEST_CASE("zcart add() one observation at a time equals fit() on the same observations, in any order") {
  // The exact incremental property (models/zcart.hpp): information gain, at most max_bins distinct
  // values per attribute. Checked after every add against a batch fit of the same prefix.
  const auto data = growing_data(240, 31);
  const auto points = step_data(60, 32, true);
  for (int min_leaf : {2, 5}) {
    ZCartOptions opt;
    opt.min_leaf = min_leaf;
    for (std::uint32_t seed : {1u, 2u, 3u}) {
      auto order = data;
      std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
      ZCart inc(schema3(), opt);
      std::vector<Observation> prefix;
      std::size_t max_nodes = 0;
      for (const auto& o : order) {
        inc.add(o);
        prefix.push_back(o);
        ZCart batch(schema3(), opt);
        batch.fit(prefix);
        INFO("min_leaf " << min_leaf << ", order " << seed << ", after " << prefix.size() << " adds");
        require_same_tree(inc, batch, points);
        max_nodes = std::max(max_nodes, inc.node_count());
      }
      CHECK(max_nodes >= 7);  // the tree did grow and change along the way
    }
  }
  // Random targets: a deep tree full of near-tied splits, revised on almost every add.
  ZCartOptions opt;
  opt.min_leaf = 2;
  opt.min_gain = 0;
  std::mt19937_64 rng(99);
  std::vector<Observation> noise;
  for (int i = 0; i < 300; ++i)
    noise.push_back(
        {{static_cast<double>(rng() % 50), static_cast<double>(rng() % 7), static_cast<double>(rng() % 3)},
         1.0 + static_cast<double>(rng() % 5),
         0.5 + static_cast<double>(rng() % 1000) / 100.0});
  ZCart inc(schema3(), opt);
  std::vector<Observation> prefix;
  for (const auto& o : noise) {
    inc.add(o);
    prefix.push_back(o);
    ZCart batch(schema3(), opt);
    batch.fit(prefix);
    INFO("random targets, after " << prefix.size() << " adds");
    require_same_tree(inc, batch, noise);
  }
  CHECK(inc.node_count() > 100);
}

TEST_CASE("zcart add() after a JSON round trip continues exactly as fit()") {
  // The probe agent's path: a stored tree (with its observations) extended by add().
  const auto data = growing_data(200, 41);
  ZCart first(schema3());
  first.fit(std::vector<Observation>(data.begin(), data.begin() + 120));
  ZCart t = ZCart::from_json(nlohmann::json::parse(first.to_json().dump()));
  CHECK(t.options() == first.options());
  for (std::size_t i = 120; i < data.size(); ++i) t.add(data[i]);
  ZCart batch(schema3());
  batch.fit(data);
  require_same_tree(t, batch, step_data(60, 42, true));
}

TEST_CASE("zcart lazy add() retrains a leaf only once it grew by retrain_growth") {
  ZCartOptions opt;
  opt.exact_add = false;
  auto data = step_data(3000, 21, true);
  ZCart lazy(schema3(), opt);
  for (const auto& o : data) lazy.add(o);
  INFO(lazy.describe());
  CHECK(lazy.predict({64, 3, 0}, 1.0).correction == Approx(0.5).epsilon(0.02));
  CHECK(lazy.predict({8, 1, 2}, 1.0).correction == Approx(0.7).epsilon(0.02));
  for (const auto& nd : lazy.nodes()) {
    if (nd.attr >= 0) continue;
    // A leaf retrains when n reaches trained_n * 1.25 (and at least 2 * min_leaf observations).
    CHECK(nd.n <
          std::max<std::uint64_t>(
              nd.trained_n + std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(
                                                            0.25 * static_cast<double>(nd.trained_n)))),
              10));
  }
  lazy.retrain();
  ZCart batch(schema3(), opt);
  batch.fit(data);
  CHECK(lazy.describe() == batch.describe());
}
