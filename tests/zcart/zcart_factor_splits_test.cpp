// A Z-CART split on a derived attribute read back over the factors (experiment/zcart_factor_splits),
// on configs/sim.toml (factors disks 1-4 and threads 1-100, a pool of {threads} around {disks}
// disks): a split on the disks' saturation rate is a condition on disks alone; a split on threads
// per disk is no box over the factors, and says so.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/config.hpp"
#include "experiment/zcart_attributes.hpp"
#include "experiment/zcart_factor_splits.hpp"
#include "models/zcart.hpp"

using namespace wb;

namespace {

std::size_t attribute_index(const ZCartAttributes& a, const std::string& name) {
  for (std::size_t i = 0; i < a.schema().size(); ++i)
    if (a.schema()[i].name == name) return i;
  FAIL("no attribute " << name);
  return 0;
}

// A tree over every combination of levels, the observed λ* `ratio(values)` times the expectation.
// `hidden`: attributes set to 0 in what the tree sees, so that it must split on another.
template <typename Ratio>
ZCart fitted(const Config& config, const ZCartAttributes& attributes, const std::vector<std::size_t>& hidden,
             Ratio ratio) {
  const std::size_t peak = attribute_index(attributes, "expected_peak");
  ZCartOptions options;
  options.min_leaf = 3;
  ZCart tree(attributes.schema(), options);
  std::vector<Observation> obs;
  for (const auto& d : config.factors()[0].levels) {
    for (const auto& t : config.factors()[1].levels) {
      Sample s;
      s.set("disks", d);
      s.set("threads", t);
      auto v = attributes.encode(s);
      REQUIRE(v);
      const double expected = (*v)[peak];
      const double observed = ratio(*v) * expected;
      for (std::size_t h : hidden) (*v)[h] = 0;
      obs.push_back(Observation{*v, expected, observed});
    }
  }
  tree.fit(obs);
  return tree;
}

}  // namespace

TEST_CASE("a split on the disks' saturation rate reads as a condition on disks") {
  const Config config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  const ZCartAttributes attributes(config);
  const std::size_t disks = attribute_index(attributes, "disks");
  const std::size_t lambda_max = attribute_index(attributes, "disk_lambda_max");
  // Half the expected λ* from three disks up; the tree does not see disks itself.
  const ZCart tree = fitted(config, attributes, {disks},
                            [&](const std::vector<double>& v) { return v[disks] >= 3 ? 0.5 : 1.0; });
  INFO(tree.describe());
  REQUIRE(tree.nodes()[0].attr == static_cast<int>(lambda_max));
  const std::vector<FactorSplit> splits = factor_splits(tree, attributes);
  REQUIRE(splits.size() == 1);
  CHECK(splits[0].split.rfind("disk_lambda_max <= ", 0) == 0);
  CHECK(splits[0].samples == 32);
  CHECK(splits[0].to_left == 16);
  CHECK(splits[0].left == "disks <= 2.5");
  CHECK(splits[0].right == "disks > 2.5");
  const auto j = factor_splits_json(splits);
  CHECK(j[0]["right"] == "disks > 2.5");
  // Beyond the grid's size limit: nothing is read.
  CHECK(factor_splits(tree, attributes, 8).empty());
}

TEST_CASE("a split on threads per disk is no box over the factors, and splits on factors are not read") {
  const Config config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  const ZCartAttributes attributes(config);
  const std::size_t ratio = attribute_index(attributes, "nfsd_per_disk");
  const ZCart tree =
      fitted(config, attributes, {}, [&](const std::vector<double>& v) { return v[ratio] > 8 ? 0.4 : 1.0; });
  INFO(tree.describe());
  REQUIRE(tree.nodes()[0].attr == static_cast<int>(ratio));
  const std::vector<FactorSplit> splits = factor_splits(tree, attributes);
  REQUIRE(splits.size() == 1);
  CHECK(splits[0].samples == 32);
  CHECK(splits[0].to_left > 0);
  CHECK(splits[0].to_left < 32);
  CHECK(splits[0].left.empty());
  CHECK(splits[0].right.empty());
  CHECK(factor_splits_json(splits)[0]["left"].is_null());
  // threads / disks > 8 sends right 4 + 3 + 3 + 2 of the threads levels above 16 at 1..4 disks, and
  // (16, 1 disk): "threads <= 24" agrees at 30 of 32, every other cut at 28 or fewer.
  CHECK(splits[0].surrogate == "threads <= 24");
  CHECK(splits[0].agree == 30);
  CHECK(factor_splits_json(splits)[0]["surrogate"] == "threads <= 24");

  // A tree that splits on threads only has nothing to read back.
  const std::size_t threads = attribute_index(attributes, "threads");
  const ZCart by_threads = fitted(config, attributes, {},
                                  [&](const std::vector<double>& v) { return v[threads] >= 32 ? 0.5 : 1.0; });
  INFO(by_threads.describe());
  REQUIRE(by_threads.nodes()[0].attr == static_cast<int>(threads));
  CHECK(factor_splits(by_threads, attributes).empty());
}

TEST_CASE("a leaf learned on derived attributes reads as the deviation's box over both factors") {
  const Config config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  const ZCartAttributes attributes(config);
  const std::size_t disks = attribute_index(attributes, "disks");
  const std::size_t threads = attribute_index(attributes, "threads");
  // λ* 0.4 of the expectation only with disks >= 3 and threads >= 32; the tree sees neither factor.
  const ZCart tree = fitted(config, attributes, {disks, threads}, [&](const std::vector<double>& v) {
    return v[disks] >= 3 && v[threads] >= 32 ? 0.4 : 1.0;
  });
  INFO(tree.describe());
  const std::vector<FactorSplit> splits = factor_splits(tree, attributes);
  REQUIRE(!splits.empty());
  // The leaf that corrects reads over the factors as the deviation's box, whatever attributes the
  // path to it splits on; every other leaf keeps the expectation.
  const std::vector<FactorLeaf> leaves = factor_leaves(tree, attributes);
  std::string read;
  for (const FactorLeaf& l : leaves) read += l.rule + " -> " + l.box + "\n";
  INFO(read);
  std::size_t correcting = 0, combinations = 0;
  for (const FactorLeaf& l : leaves) {
    combinations += l.samples;
    if (l.correction == 1 && l.cap == 0) continue;
    ++correcting;
    CHECK(l.correction == Approx(0.4));
    CHECK(l.box == "disks > 2.5 and threads > 24");
    CHECK(l.samples == 6);
  }
  CHECK(correcting == 1);
  CHECK(combinations == 32);
  CHECK(factor_leaves_json(leaves).size() == leaves.size());
  // A tree that splits on factors only reads as it is.
  const ZCart by_factors = fitted(config, attributes, {}, [&](const std::vector<double>& v) {
    return v[disks] >= 3 && v[threads] >= 32 ? 0.4 : 1.0;
  });
  INFO(by_factors.describe());
  if (factor_splits(by_factors, attributes).empty()) CHECK(factor_leaves(by_factors, attributes).empty());
}
