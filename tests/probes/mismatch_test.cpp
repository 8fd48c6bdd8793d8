// The mismatch rule and the information-gain ranking [000 §3.2, eq. 1, 2].
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "models/mismatch.hpp"

using namespace wb;

TEST_CASE("a mismatch needs the expectation outside the λ* interval and off by more than the tolerance") {
  const MeasuredPeak m{100, 95, 108};
  CHECK_FALSE(is_mismatch(100, m, 0.15));  // equal
  CHECK_FALSE(is_mismatch(107, m, 0.15));  // inside the interval
  CHECK_FALSE(is_mismatch(110, m, 0.15));  // outside the interval but within 15%
  CHECK_FALSE(is_mismatch(86, m, 0.15));   // outside, 14% low
  CHECK(is_mismatch(116, m, 0.15));        // outside and 16% high
  CHECK(is_mismatch(84, m, 0.15));         // outside and 16% low
  CHECK(is_mismatch(116, m, 0.10));
  CHECK_FALSE(is_mismatch(116, m, 0.20));  // the tolerance is a parameter
  // A wide interval covers a far expectation: the evidence cannot rule it out.
  CHECK_FALSE(is_mismatch(150, MeasuredPeak{100, 60, 160}, 0.15));
  // Unbounded above: nothing above the point value is a mismatch, below still is.
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_FALSE(is_mismatch(400, MeasuredPeak{100, 90, inf}, 0.15));
  CHECK(is_mismatch(50, MeasuredPeak{100, 90, inf}, 0.15));
  // Nothing to compare.
  CHECK_FALSE(is_mismatch(0, m, 0.15));
  CHECK_FALSE(is_mismatch(std::nan(""), m, 0.15));
  CHECK_FALSE(is_mismatch(inf, m, 0.15));
  CHECK_FALSE(is_mismatch(100, MeasuredPeak{0, 0, 0}, 0.15));
}

TEST_CASE("class entropy is eq. 2 in bits") {
  CHECK(class_entropy(0, 10) == 0);
  CHECK(class_entropy(10, 10) == 0);
  CHECK(class_entropy(0, 0) == 0);
  CHECK(class_entropy(5, 10) == Approx(1.0));
  CHECK(class_entropy(1, 4) == Approx(-0.25 * std::log2(0.25) - 0.75 * std::log2(0.75)));
}

namespace {

std::vector<Attribute> schema() {
  return {Attribute{"threads", AttributeKind::kNumeric, {}}, Attribute{"disks", AttributeKind::kNumeric, {}},
          Attribute{"mix", AttributeKind::kCategorical, {"read", "write"}}};
}

}  // namespace

TEST_CASE("the attribute that separates the mismatches ranks first, with the gain of eq. 1") {
  // A synthetic table: every sample with disks >= 4 is a mismatch; threads has more levels and
  // mix alternates, neither related to the class.
  std::vector<ClassifiedObservation> table;
  const double thread_levels[] = {1, 2, 4, 8, 16, 32, 64, 100};
  int i = 0;
  for (double disks : {1.0, 2.0, 3.0, 4.0}) {
    for (double threads : thread_levels) {
      table.push_back(ClassifiedObservation{{threads, disks, static_cast<double>(i++ % 2)}, disks >= 4});
    }
  }
  auto ranked = rank_attributes(schema(), table);
  REQUIRE(ranked.size() == 3);
  CHECK(ranked[0].name == "disks");
  // A perfect split removes all of the parent entropy (8 of 32 mismatches).
  CHECK(ranked[0].gain == Approx(class_entropy(8, 32)));
  CHECK(ranked[1].gain == Approx(0).margin(1e-12));
  CHECK(ranked[2].gain == Approx(0).margin(1e-12));
}

TEST_CASE("information gain of a partial split matches the hand computation") {
  // mismatches: threads=64 (2 of 2) and threads=8 (1 of 2); none at threads=1 (0 of 2).
  std::vector<ClassifiedObservation> t{{{1, 1, 0}, false}, {{1, 2, 0}, false}, {{8, 1, 0}, true},
                                       {{8, 2, 0}, false}, {{64, 1, 0}, true}, {{64, 2, 0}, true}};
  auto ranked = rank_attributes(schema(), t);
  REQUIRE(ranked[0].name == "threads");
  const double parent = class_entropy(3, 6);
  // Best threshold: threads <= 1 (0/2) vs > 1 (3/4) gives parent - 4/6 H(3/4); threads <= 8 (1/4)
  // vs > 8 (2/2) gives the same by symmetry.
  const double expect = parent - 4.0 / 6.0 * class_entropy(3, 4);
  CHECK(ranked[0].gain == Approx(expect));
  // disks: 1 -> 2 of 3 mismatches, 2 -> 1 of 3.
  CHECK(ranked[1].name == "disks");
  CHECK(ranked[1].gain == Approx(parent - 0.5 * class_entropy(2, 3) - 0.5 * class_entropy(1, 3)));
}

TEST_CASE("a categorical attribute is ranked by one level against the rest") {
  std::vector<ClassifiedObservation> t;
  for (int k = 0; k < 6; ++k) t.push_back({{1, 1, static_cast<double>(k % 2)}, k % 2 == 1});
  auto ranked = rank_attributes(schema(), t);
  CHECK(ranked[0].name == "mix");
  CHECK(ranked[0].gain == Approx(1.0));
}

TEST_CASE("ranking rejects an observation of the wrong size") {
  std::vector<ClassifiedObservation> t{{{1, 2}, true}};
  CHECK_THROWS(rank_attributes(schema(), t));
}

namespace {

CenterResult center(const std::string& name, bool pool, double response_ms) {
  CenterResult c;
  c.name = name;
  c.pool = pool;
  c.response_ms = response_ms;
  return c;
}

}  // namespace

TEST_CASE("the deviating center is the one where most of the extra response time is spent") {
  // Recorded: refserver --threads 8 --disks 2 --disk-ms 5 --slow-disk 0:4, db_tp mix at 150/s (one
  // 2 s trial's stage means), against the demo model's centers solved at 150/s.
  const std::map<std::string, double> stages{{"thread_queue", 1.511}, {"lock", 0.0},   {"cpu", 0.179},
                                             {"disk_queue", 5.642},   {"disk", 7.902}, {"lag", 0.102},
                                             {"residence", 15.336}};
  const std::vector<CenterResult> model{center("workers", true, 0.00184), center("cpu", false, 0.2),
                                        center("disk", false, 5.6), center("net", false, 0.3)};
  std::vector<CenterDeviation> d = center_deviations(model, stages);
  REQUIRE(d.size() == 3);  // net: no stage measures it
  CHECK(d[0].center == "workers");
  CHECK(d[0].stages == "thread_queue");
  CHECK(d[0].measured_ms == Approx(1.511));
  CHECK(d[1].center == "cpu");
  CHECK(d[1].deviation == Approx((0.179 - 0.2) / 0.2));
  CHECK(d[2].center == "disk");
  CHECK(d[2].stages == "disk_queue+disk");
  CHECK(d[2].measured_ms == Approx(5.642 + 7.902));
  CHECK(d[2].deviation == Approx((13.544 - 5.6) / 5.6));
  CHECK(d[2].share == Approx((13.544 - 5.6) / (0.00184 + 0.2 + 5.6)));
  // The pool's own ratio is far larger (a token wait predicted at 2 µs), but the disk is where
  // the time went.
  CHECK(d[0].deviation > 100 * d[2].deviation);
  auto worst = deviating_center(d);
  REQUIRE(worst);
  CHECK(worst->center == "disk");
  CHECK(center_deviation_text(*worst) == "disk: 13.5 ms measured vs 5.6 ms predicted (+142%)");
}

TEST_CASE("centers without stages, saturated centers and a faster-than-predicted center") {
  const std::vector<CenterResult> model{center("workers", true, 0.5), center("cpu", false, 2.0),
                                        center("disk", false, std::numeric_limits<double>::infinity())};
  // No disk stages and a saturated disk prediction: only workers and cpu compare.
  std::vector<CenterDeviation> d = center_deviations(model, {{"thread_queue", 0.4}, {"cpu", 0.5}});
  REQUIRE(d.size() == 2);
  auto worst = deviating_center(d);
  REQUIRE(worst);
  CHECK(worst->center == "cpu");  // 1.5 ms less than predicted outweighs 0.1 ms
  CHECK(worst->share < 0);
  // A center predicted at 0 has no finite ratio; it still ranks by the time it adds.
  d = center_deviations({center("workers", true, 0.0), center("cpu", false, 1.0)},
                        {{"thread_queue", 0.2}, {"cpu", 1.05}});
  REQUIRE(d.size() == 2);
  CHECK(std::isinf(d[0].deviation));
  CHECK(deviating_center(d)->center == "workers");
  CHECK(center_deviation_text(d[0]) == "workers: 0.2 ms measured vs 0 ms predicted (predicted 0)");
  // Nothing measured: nothing to choose.
  CHECK(center_deviations(model, {}).empty());
  CHECK_FALSE(deviating_center({}));
}
