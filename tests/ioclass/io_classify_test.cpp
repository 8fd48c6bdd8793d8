// The I/O classifier of models/io_classify.hpp [004 "I/O Classification"]: calibrated on generated
// benchmarks whose classes the test knows, it must label a mixed trace as the generator made it.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "models/io_classify.hpp"

namespace {

constexpr std::uint64_t kKiB = 1024;
const std::vector<std::uint64_t> kSizes{4 * kKiB, 16 * kKiB, 64 * kKiB, 256 * kKiB, 1024 * kKiB};

// One way an operation can go: time = (latency + size / bandwidth) · exp(N(0, log_sd²)).
struct Behaviour {
  double latency_s, bytes_per_s, log_sd;
};

// A class as the generator knows it: behaviours and how often each happens.
struct TrueClass {
  std::string name;
  std::vector<std::pair<double, Behaviour>> modes;  // {weight, behaviour}
};

const TrueClass kCache{"cache", {{1.0, {5e-6, 10e9, 0.25}}}};
const TrueClass kDisk{"disk", {{1.0, {2e-3, 200e6, 0.3}}}};
const TrueClass kSequential{"disk_sequential", {{1.0, {1e-4, 500e6, 0.25}}}};
// Random reads of which 15% hit the drive's own cache: two clusters of one class.
const TrueClass kRandom{"disk_random", {{0.85, {2e-3, 200e6, 0.3}}, {0.15, {3e-4, 400e6, 0.2}}}};

wb::IoOp make_op(const TrueClass& c, std::uint64_t size, std::mt19937_64& rng) {
  std::vector<double> weights;
  for (const auto& m : c.modes) weights.push_back(m.first);
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  const Behaviour& b = c.modes[pick(rng)].second;
  std::normal_distribution<double> z(0, b.log_sd);
  wb::IoOp op;
  op.file = "f";
  op.size = size;
  op.duration_s = (b.latency_s + static_cast<double>(size) / b.bytes_per_s) * std::exp(z(rng));
  return op;
}

wb::CalibrationSet calibration(const TrueClass& c, std::size_t per_size, unsigned seed) {
  std::mt19937_64 rng(seed);
  wb::CalibrationSet set{c.name, {}};
  for (std::uint64_t size : kSizes)
    for (std::size_t i = 0; i < per_size; ++i) set.ops.push_back(make_op(c, size, rng));
  return set;
}

// A trace mixing the classes with the given weights at random sizes; truth[i] is op i's class index.
struct Trace {
  std::vector<wb::IoOp> ops;
  std::vector<std::size_t> truth;
};

Trace mixed_trace(const std::vector<std::pair<double, TrueClass>>& classes, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> weights;
  for (const auto& c : classes) weights.push_back(c.first);
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  std::uniform_int_distribution<std::size_t> size_at(0, kSizes.size() - 1);
  Trace t;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t c = pick(rng);
    t.ops.push_back(make_op(classes[c].second, kSizes[size_at(rng)], rng));
    t.truth.push_back(c);
  }
  return t;
}

double share_right(const wb::IoClassifier& classifier, const Trace& t) {
  std::vector<wb::IoLabel> labels = classifier.classify(t.ops);
  std::size_t right = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) right += labels[i].class_index == t.truth[i] ? 1 : 0;
  return static_cast<double>(right) / static_cast<double>(labels.size());
}

}  // namespace

TEST_CASE("cached and uncached reads of several sizes: at least 90% labelled right") {
  std::vector<wb::CalibrationSet> sets{calibration(kCache, 400, 1), calibration(kDisk, 400, 2)};
  wb::IoClassifier classifier = wb::IoClassifier::calibrate(sets);
  REQUIRE(classifier.classes().size() == 2);
  Trace t = mixed_trace({{0.4, kCache}, {0.6, kDisk}}, 5000, 3);
  CHECK(share_right(classifier, t) >= 0.9);
  std::map<std::string, double> shares = classifier.shares(t.ops);
  double true_cache = 0;
  for (std::size_t c : t.truth) true_cache += c == 0 ? 1.0 / static_cast<double>(t.truth.size()) : 0.0;
  CHECK(shares.at("cache") == Approx(true_cache).margin(0.02));
  CHECK(shares.at("cache") + shares.at("disk") == Approx(1.0));
  std::map<std::string, double> attributes = wb::io_class_attributes(classifier, t.ops);
  CHECK(attributes.at("cache_fraction") == shares.at("cache"));
  CHECK(attributes.at("disk_fraction") == shares.at("disk"));
}

TEST_CASE("each class's line recovers the generator's latency and bandwidth") {
  std::vector<wb::CalibrationSet> sets{calibration(kCache, 400, 1), calibration(kDisk, 400, 2)};
  wb::IoClassifier classifier = wb::IoClassifier::calibrate(sets);
  const wb::IoClass& disk = classifier.classes()[1];
  REQUIRE(disk.name == "disk");
  REQUIRE(disk.clusters.size() == 1);
  // The line fits the median of log-normal noise, exp(0) = 1 times the generator's time.
  CHECK(disk.clusters[0].intercept_s == Approx(2e-3).epsilon(0.1));
  CHECK(disk.clusters[0].seconds_per_byte == Approx(1 / 200e6).epsilon(0.1));
  CHECK(disk.clusters[0].log_sd == Approx(0.3).epsilon(0.15));
  CHECK(disk.clusters[0].min_size == 4 * kKiB);
  CHECK(disk.clusters[0].max_size == 1024 * kKiB);
  const wb::IoClass& cache = classifier.classes()[0];
  REQUIRE(cache.clusters.size() == 1);
  CHECK(cache.clusters[0].intercept_s == Approx(5e-6).epsilon(0.15));
  CHECK(cache.clusters[0].seconds_per_byte == Approx(1 / 10e9).epsilon(0.15));
}

TEST_CASE("three classes, one of them bimodal: the drive-cache cluster gets its own line") {
  std::vector<wb::CalibrationSet> sets{calibration(kCache, 600, 4), calibration(kSequential, 600, 5),
                                       calibration(kRandom, 600, 6)};
  wb::IoClassifier classifier = wb::IoClassifier::calibrate(sets);
  const wb::IoClass& random = classifier.classes()[2];
  REQUIRE(random.clusters.size() == 2);
  // Fastest first: the drive-cache hits (0.3 ms + size / 400 MB/s), then the seeks (2 ms + size / 200 MB/s).
  CHECK(random.clusters[0].intercept_s == Approx(3e-4).epsilon(0.3));
  CHECK(random.clusters[0].share == Approx(0.15).margin(0.05));
  CHECK(random.clusters[1].intercept_s == Approx(2e-3).epsilon(0.15));
  CHECK(random.clusters[1].seconds_per_byte == Approx(1 / 200e6).epsilon(0.15));
  Trace t = mixed_trace({{0.3, kCache}, {0.3, kSequential}, {0.4, kRandom}}, 6000, 7);
  CHECK(share_right(classifier, t) >= 0.9);
}

TEST_CASE("few operations per size: no KDE, one line per class, still right") {
  std::vector<wb::CalibrationSet> sets{calibration(kCache, 5, 8), calibration(kDisk, 5, 9)};
  wb::IoClassifier classifier = wb::IoClassifier::calibrate(sets);
  CHECK(classifier.classes()[0].clusters.size() == 1);
  CHECK(classifier.classes()[1].clusters.size() == 1);
  Trace t = mixed_trace({{0.5, kCache}, {0.5, kDisk}}, 2000, 10);
  CHECK(share_right(classifier, t) >= 0.9);
}

TEST_CASE("a class calibrated at one size gets a constant line") {
  wb::CalibrationSet cache{"cache", {}}, disk{"disk", {}};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200; ++i) {
    cache.ops.push_back(make_op(kCache, 4 * kKiB, rng));
    disk.ops.push_back(make_op(kDisk, 4 * kKiB, rng));
  }
  std::vector<wb::CalibrationSet> sets{cache, disk};
  wb::IoClassifier classifier = wb::IoClassifier::calibrate(sets);
  CHECK(classifier.classes()[1].clusters[0].seconds_per_byte == 0.0);
  CHECK(classifier.classes()[1].clusters[0].intercept_s == Approx(2.02e-3).epsilon(0.1));
  wb::IoOp slow;
  slow.size = 4 * kKiB;
  slow.duration_s = 1.5e-3;
  CHECK(classifier.classify(slow).class_index == 1);
  slow.duration_s = 0;  // counts as 1 ns: a cache hit, not a NaN
  CHECK(classifier.classify(slow).class_index == 0);
}

TEST_CASE("a calibrated classifier survives a JSON round trip") {
  std::vector<wb::CalibrationSet> sets{calibration(kCache, 300, 12), calibration(kRandom, 300, 13)};
  wb::IoClassifier classifier = wb::IoClassifier::calibrate(sets);
  nlohmann::json saved = classifier.to_json();
  wb::IoClassifier loaded = wb::IoClassifier::from_json(nlohmann::json::parse(saved.dump()));
  CHECK(loaded.to_json() == saved);
  Trace t = mixed_trace({{0.5, kCache}, {0.5, kRandom}}, 1000, 14);
  std::vector<wb::IoLabel> before = classifier.classify(t.ops), after = loaded.classify(t.ops);
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK(before[i].class_index == after[i].class_index);
    CHECK(before[i].cluster_index == after[i].cluster_index);
  }
}

TEST_CASE("invalid classifier JSON names the field") {
  std::vector<wb::CalibrationSet> sets{calibration(kCache, 50, 15)};
  nlohmann::json j = wb::IoClassifier::calibrate(sets).to_json();
  nlohmann::json missing = j;
  missing["classes"][0]["clusters"][0].erase("log_sd");
  CHECK_THROWS_WITH(wb::IoClassifier::from_json(missing),
                    Catch::Contains("classes[0].clusters[0]") && Catch::Contains("log_sd"));
  nlohmann::json negative = j;
  negative["classes"][0]["clusters"][0]["seconds_per_byte"] = -1.0;
  CHECK_THROWS_AS(wb::IoClassifier::from_json(negative), wb::InputError);
  nlohmann::json wrong_type = j;
  wrong_type["classes"][0]["name"] = 3;
  CHECK_THROWS_WITH(wb::IoClassifier::from_json(wrong_type), Catch::Contains("wrong type"));
  CHECK_THROWS_AS(wb::IoClassifier::from_json(nlohmann::json::array()), wb::InputError);
  nlohmann::json other = j;
  other["kind"] = "zcart";
  CHECK_THROWS_AS(wb::IoClassifier::from_json(other), wb::InputError);
}

TEST_CASE("calibration refuses no set, a nameless or empty set, and a repeated name") {
  std::vector<wb::CalibrationSet> none;
  CHECK_THROWS_AS(wb::IoClassifier::calibrate(none), wb::InputError);
  std::vector<wb::CalibrationSet> nameless{calibration(kCache, 10, 16)};
  nameless[0].name.clear();
  CHECK_THROWS_AS(wb::IoClassifier::calibrate(nameless), wb::InputError);
  std::vector<wb::CalibrationSet> empty{{"cache", {}}};
  CHECK_THROWS_AS(wb::IoClassifier::calibrate(empty), wb::InputError);
  std::vector<wb::CalibrationSet> twice{calibration(kCache, 10, 17), calibration(kCache, 10, 18)};
  CHECK_THROWS_WITH(wb::IoClassifier::calibrate(twice), Catch::Contains("twice"));
}
