// Z-CART leaf models [docs/decisions.md#zcart-leaves]: a capped leaf for a bottleneck the
// expectation lacks, chosen by held-out error, and leaves that keep the expectation unless their
// evidence contradicts it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/zcart.hpp"
#include "tests/zcart/zcart_schema.hpp"

using wb::test::schema3;

TEST_CASE("a leaf whose λ* a bottleneck caps predicts min(expected, cap), chosen by held-out error") {
  // Expected λ* grows with disks (100 per disk); above 32 threads a resource the expectation
  // lacks caps λ* at 125/s: disks=1 still gets its 100, disks 2-4 get 125 (± 1%).
  std::vector<Observation> obs;
  for (double threads : {8.0, 16.0, 64.0, 128.0}) {
    for (double disks : {1.0, 2.0, 3.0, 4.0}) {
      const double expected = 100 * disks;
      const double noise = 1 + 0.01 * std::sin(threads + 7 * disks);
      const double truth = threads > 32 ? std::min(expected, 125.0) : expected;
      obs.push_back({{threads, disks, 0}, expected, truth * noise});
    }
  }
  ZCartOptions opt;
  opt.min_leaf = 4;
  ZCart t(schema3(), opt);
  t.fit(obs);
  INFO(t.describe());
  REQUIRE(t.nodes()[0].attr == 0);      // threads
  CHECK(t.nodes()[0].threshold == 40);  // midway between 16 and 64
  // The capped side: a ratio would answer 0.55 x expected for every disk count; the cap answers
  // 125 where the expectation is higher and the expectation where it is lower.
  auto five = t.predict({64, 5, 0}, 500);
  CHECK(five.cap == Approx(125).epsilon(0.02));
  CHECK(five.value == Approx(125).epsilon(0.02));
  CHECK(t.predict({64, 1, 0}, 100).value == 100);
  CHECK(t.predict({100, 3, 0}, 300).value == Approx(125).epsilon(0.02));
  CHECK(five.fidelity == 1.0);
  CHECK(t.describe().find("cap=") != std::string::npos);
  // The other side follows the expectation: a ratio leaf near 1.
  auto low = t.predict({8, 5, 0}, 500);
  CHECK(low.cap == 0);
  CHECK(low.value == Approx(500).epsilon(0.02));

  // Where λ* is a constant fraction of the expectation, the ratio wins.
  std::vector<Observation> scaled;
  for (double disks : {1.0, 2.0, 3.0, 4.0}) scaled.push_back({{8, disks, 0}, 100 * disks, 60 * disks});
  ZCart r(schema3(), opt);
  r.fit(scaled);
  CHECK(r.predict({8, 6, 0}, 600).cap == 0);
  CHECK(r.predict({8, 6, 0}, 600).value == Approx(360));

  // The cap survives a JSON round trip with the observations' expectations, and an exact add()
  // equals a fit.
  ZCart back = ZCart::from_json(t.to_json());
  CHECK(back.predict({64, 5, 0}, 500).value == five.value);
  ZCart grown(schema3(), opt);
  for (const auto& o : obs) grown.add(o);
  CHECK(grown.describe() == t.describe());
}

TEST_CASE("with keep_expectation a leaf predicts the expectation unless its evidence contradicts it") {
  std::vector<Attribute> schema{{"threads", AttributeKind::kNumeric, {}}};
  // Ratios 1.0, 1.0, 0.99, 0.91, 1.01 (two agreeing and a weakly deviating mixed in one leaf, as
  // when the deviation is under the tolerance): mean log ratio -0.02, well inside its 90% interval.
  std::vector<Observation> mixed;
  const double ratios[] = {1.0, 1.0, 0.99, 0.91, 1.01};
  for (int i = 0; i < 5; ++i) mixed.push_back({{double(i + 1)}, 100, 100 * ratios[i]});
  ZCartOptions options;
  options.min_leaf = 3;
  options.keep_expectation = true;
  ZCart kept(schema, options);
  kept.fit(mixed);
  CHECK(kept.predict({3}, 200).correction == 1);
  CHECK(kept.predict({3}, 200).value == 200);
  options.keep_expectation = false;
  ZCart plain(schema, options);
  plain.fit(mixed);
  CHECK(plain.predict({3}, 200).correction == Approx(0.982));

  // A consistent deviation is kept: ratios 0.50, 0.52, 0.49 (the interval excludes 0).
  std::vector<Observation> low{{{1}, 100, 50}, {{2}, 100, 52}, {{3}, 100, 49}};
  options.keep_expectation = true;
  ZCart deviating(schema, options);
  deviating.fit(low);
  CHECK(deviating.predict({2}, 100).correction == Approx(0.5033).epsilon(1e-3));

  // The option travels with the stored tree.
  CHECK(ZCart::from_json(kept.to_json()).options().keep_expectation);
  CHECK(ZCart::from_json(kept.to_json()).predict({3}, 200).correction == 1);
}

TEST_CASE("a leaf of two deviating samples keeps its ratio when the leaf's spread has a prior") {
  std::vector<Attribute> schema{{"disks", AttributeKind::kNumeric, {}}};
  // One disk measured twice far below the expectation (0.66 and 0.52, as a noisy real server
  // gives), the other samples at it. Alone, the leaf's mean log ratio, -0.53, lies inside its 90%
  // interval: one degree of freedom, t = 6.31, sd 0.17.
  std::vector<Observation> obs{{{1}, 100, 66},  {{1}, 100, 52}, {{2}, 100, 100},
                               {{2}, 100, 101}, {{4}, 100, 99}, {{4}, 100, 100}};
  ZCartOptions options;
  options.min_leaf = 2;
  options.keep_expectation = true;
  ZCart alone(schema, options);
  alone.fit(obs);
  INFO(alone.describe());
  CHECK(alone.predict({1}, 100).correction == 1);
  // With the prior of a found λ* at a 90/70 target (sd 0.18, worth two samples): t(3) = 2.35 on
  // sd 0.18 over √2 is 0.30, short of 0.53: the leaf corrects; the samples that agree still keep 1.
  options.keep_prior = wb::SpreadPrior{0.3 / 1.6449, 2};
  ZCart with_prior(schema, options);
  with_prior.fit(obs);
  INFO(with_prior.describe());
  CHECK(with_prior.predict({1}, 100).correction == Approx((0.66 + 0.52) / 2));
  CHECK(with_prior.predict({4}, 100).correction == 1);
  // Noise the size of the prior's is still noise: ratios 0.95 and 0.93 keep the expectation.
  std::vector<Observation> small{{{1}, 100, 95}, {{1}, 100, 93}, {{2}, 100, 100}, {{2}, 100, 101}};
  ZCart weak(schema, options);
  weak.fit(small);
  CHECK(weak.predict({1}, 100).correction == 1);
  // The prior travels with the stored tree.
  CHECK(ZCart::from_json(with_prior.to_json()).options().keep_prior == options.keep_prior);
}
