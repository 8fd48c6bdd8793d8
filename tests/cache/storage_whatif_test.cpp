// The storage what-if module on traces whose answers are known by hand (a loop that fits the cache
// or misses it by one block, writes that always reach the disk, meta ops that never do), and
// [model.storage] feeding the expectation network: a bigger cache, fewer disk visits, a higher λ*.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/config.hpp"
#include "core/error.hpp"
#include "experiment/expectation.hpp"
#include "experiment/zcart_attributes.hpp"
#include "models/io_classify.hpp"
#include "models/storage_whatif.hpp"

namespace fs = std::filesystem;
using wb::IoKind;
using wb::IoOp;

namespace {

// Where the attribute `name` is in the schema; fails the test if it is absent.
std::size_t attribute_index(const wb::ZCartAttributes& attributes, const std::string& name) {
  const auto& schema = attributes.schema();
  auto it =
      std::find_if(schema.begin(), schema.end(), [&](const wb::Attribute& a) { return a.name == name; });
  REQUIRE(it != schema.end());
  return static_cast<std::size_t>(it - schema.begin());
}

constexpr double kMiB = 1024.0 * 1024.0;

// `rounds` passes over blocks 0..n-1 of one file, one 4 KiB read each, one op every ms.
std::vector<IoOp> loop(std::uint64_t n, int rounds) {
  std::vector<IoOp> ops;
  double t = 0;
  for (int r = 0; r < rounds; ++r) {
    for (std::uint64_t b = 0; b < n; ++b)
      ops.push_back(IoOp{IoKind::kRead, "f", b * 4096, 4096, t += 0.001, 0});
  }
  return ops;
}

}  // namespace

TEST_CASE("a looping trace hits everywhere in a cache that holds the loop and nowhere in one block less") {
  const wb::StorageModel m(loop(100, 10), 4096, "lru", std::nullopt, 0.5);
  CHECK(m.footprint_blocks() == 100);
  const wb::StorageAnswer fits = m.at(100 * 4096 / kMiB);
  CHECK(fits.cache_blocks == 100);
  CHECK(fits.ops == 500);  // the first half only fills the cache
  CHECK(fits.read_hit_rate == 1.0);
  CHECK(fits.disk_visits == 0.0);
  const wb::StorageAnswer short_by_one = m.at(99 * 4096 / kMiB);
  CHECK(short_by_one.cache_blocks == 99);
  CHECK(short_by_one.read_hit_rate == 0.0);  // LRU's worst case: a loop one block too long
  CHECK(short_by_one.disk_visits == 1.0);
  // Under CLOCK too, every counted read either hits or goes to the disk.
  const wb::StorageModel clock(loop(100, 10), 4096, "clock", std::nullopt, 0.5);
  const wb::StorageAnswer c = clock.at(99 * 4096 / kMiB);
  CHECK(c.read_hit_rate >= 0.0);
  CHECK(c.read_hit_rate + c.disk_visits == Approx(1.0));
}

TEST_CASE("writes always reach the disk, meta ops never, and both count as requests") {
  std::vector<IoOp> ops = loop(10, 4);
  const double end = ops.back().start_s;
  for (int i = 0; i < 40; ++i) {
    ops.push_back(IoOp{IoKind::kWrite, "g", 0, 4096, end * (i + 0.5) / 40, 0});
    ops.push_back(IoOp{IoKind::kMeta, "g", 0, 0, end * (i + 0.25) / 40, 0});
  }
  const wb::StorageModel m(ops, 4096, "lru", std::nullopt, 0.5);
  const wb::StorageAnswer a = m.at(1.0);  // holds everything
  CHECK(a.ops == 60);
  CHECK(a.writes == 20);
  CHECK(a.metas == 20);
  CHECK(a.reads == 20);
  CHECK(a.read_hit_rate == 1.0);
  CHECK(a.disk_visits == Approx(20.0 / 60.0));
  const wb::StorageAnswer none = m.at(0);
  CHECK(none.read_hit_rate == 0.0);
  CHECK(none.disk_visits == Approx(40.0 / 60.0));
}

TEST_CASE("with a disk, each disk I/O is priced by the four-parameter model over the miss stream") {
  wb::DiskParams disk;
  disk.seq_read_bps = 4096 / 0.001;   // a sequential 4 KiB read: 1 ms
  disk.rand_read_bps = 4096 / 0.005;  // a random one: 5 ms
  disk.seq_write_bps = disk.rand_write_bps = 1e6;
  const wb::StorageModel m(loop(100, 10), 4096, "lru", disk, 0.5);
  const wb::StorageAnswer a = m.at(0);
  REQUIRE(a.disk_ms);
  // Within a pass the misses continue each other; each of the 5 counted passes restarts at block 0,
  // a seek: 495 sequential and 5 random reads.
  CHECK(*a.disk_ms == Approx((495 * 1.0 + 5 * 5.0) / 500).epsilon(1e-9));
  CHECK_FALSE(m.at(1.0).disk_ms);  // nothing reaches the disk
}

TEST_CASE("a storage model refuses what it cannot answer") {
  CHECK_THROWS_AS(wb::StorageModel({}, 4096, "lru", std::nullopt), wb::InputError);
  CHECK_THROWS_WITH(wb::StorageModel(loop(4, 1), 4096, "fifo", std::nullopt),
                    Catch::Contains("unknown cache policy 'fifo'"));
  CHECK_THROWS_AS(wb::StorageModel(loop(4, 1), 4096, "lru", std::nullopt, 0.95), wb::InputError);
  const wb::StorageModel m(loop(4, 1), 4096, "lru", std::nullopt);
  CHECK_THROWS_AS(m.at(-1), wb::InputError);
}

TEST_CASE("[model.storage] gives the network its disk visits per cache size") {
  const fs::path dir = fs::temp_directory_path() / ("wb_storage_whatif_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "trace.csv");
    wb::write_io_trace(out, loop(1000, 4));  // 1000 blocks: 3.9 MiB
  }
  const std::string text = R"([testbed]
name = "cached"
[factors.cache_mb]
levels = [0, 1, 2, 4]
[peak]
r_sat_ms = 20
width = 0.1
[model.storage]
trace = "trace.csv"
cache_mb = "{cache_mb}"
block_kb = 4
[[model.center]]
name = "cpu"
service_ms = 0.5
[[model.center]]
name = "disk"
service_ms = 5
visits = "{disk_visits}"
)";
  {
    std::ofstream out(dir / "cached.toml");
    out << text;
  }
  const wb::Config config = wb::Config::load((dir / "cached.toml").string());
  auto at = [&](const char* mb) {
    wb::Sample s;
    s.set("cache_mb", mb);
    return wb::expect_peak(config, s, {});
  };
  const wb::PeakExpectation none = at("0"), all = at("4");
  REQUIRE(none.storage);
  CHECK(none.storage->disk_visits == 1.0);
  CHECK(none.peak_rate < 200);  // the 5 ms disk on every request
  REQUIRE(all.storage);
  CHECK(all.storage->read_hit_rate == 1.0);
  CHECK(all.peak_rate > 1000);                         // only the 0.5 ms CPU is left
  CHECK(at("2").peak_rate == Approx(none.peak_rate));  // a loop longer than the cache: LRU misses all

  // Z-CART may split on what the cache does at a sample, known before it runs.
  const wb::ZCartAttributes attributes(config);
  auto index = [&](const std::string& name) { return attribute_index(attributes, name); };
  const std::size_t hit = index("cache_hit_rate"), visits = index("disk_visits");
  CHECK(attributes.factors_of(hit) == std::vector<std::string>{"cache_mb"});
  wb::Sample small, big;
  small.set("cache_mb", "0");
  big.set("cache_mb", "4");
  const auto a = attributes.encode(small), b = attributes.encode(big);
  REQUIRE(a);
  REQUIRE(b);
  CHECK((*a)[hit] == 0.0);
  CHECK((*a)[visits] == 1.0);
  CHECK((*b)[hit] == 1.0);
  CHECK((*b)[visits] == 0.0);

  // Mistakes are named where they are.
  std::string bad = text;
  bad.replace(bad.find("trace.csv"), 9, "missing.csv");
  {
    std::ofstream out(dir / "bad.toml");
    out << bad;
  }
  // The config loads (a trace is often recorded with it); answering names the missing file.
  const wb::Config missing = wb::Config::load((dir / "bad.toml").string());
  wb::Sample one;
  one.set("cache_mb", "1");
  CHECK_THROWS_WITH(wb::expect_peak(missing, one, {}),
                    Catch::Contains("bad.toml:8:model.storage") && Catch::Contains("missing.csv"));
  std::string policy = text;
  policy.replace(policy.find("block_kb = 4"), 12, "policy = \"mru\"");
  {
    std::ofstream out(dir / "policy.toml");
    out << policy;
  }
  const wb::Config p = wb::Config::load((dir / "policy.toml").string());
  wb::Sample s;
  s.set("cache_mb", "1");
  CHECK_THROWS_WITH(wb::expect_peak(p, s, {}), Catch::Contains("model.storage") && Catch::Contains("'mru'"));
  fs::remove_all(dir);
}

TEST_CASE("[model.storage] disk = \"{disk}.json\" answers for another disk, priced by its own calibration") {
  const fs::path dir = fs::temp_directory_path() / ("wb_storage_disk_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "trace.csv");
    wb::write_io_trace(out, loop(1000, 4));
  }
  // A sequential 4 KiB read: 1 ms on "hdd", 0.1 ms on "ssd"; random ones 10 and 0.2 ms.
  std::ofstream(dir / "hdd.json") << R"({"seq_read_bps": 4096000, "seq_write_bps": 4096000,
    "rand_read_bps": 409600, "rand_write_bps": 409600})";
  std::ofstream(dir / "ssd.json") << R"({"seq_read_bps": 40960000, "seq_write_bps": 40960000,
    "rand_read_bps": 20480000, "rand_write_bps": 20480000})";
  const std::string text = R"([testbed]
name = "disks"
[factors.disk]
levels = ["hdd", "ssd"]
[peak]
r_sat_ms = 20
width = 0.1
[model.storage]
trace = "trace.csv"
cache_mb = 1
disk = "{disk}.json"
[[model.center]]
name = "disk"
service_ms = "{disk_ms}"
visits = "{disk_visits}"
)";
  std::ofstream(dir / "disks.toml") << text;
  const wb::Config config = wb::Config::load((dir / "disks.toml").string());
  auto at = [&](const char* disk) {
    wb::Sample s;
    s.set("disk", disk);
    return wb::expect_peak(config, s, {});
  };
  const wb::PeakExpectation hdd = at("hdd"), ssd = at("ssd");
  REQUIRE(hdd.storage);
  REQUIRE(hdd.storage->disk_ms);
  REQUIRE(ssd.storage->disk_ms);
  // The 1000-block loop misses a 1 MiB cache everywhere: its counted half, two passes, is 1998
  // sequential reads and 2 seeks (each pass restarts at block 0).
  CHECK(*hdd.storage->disk_ms == Approx((1998 * 1.0 + 2 * 10.0) / 2000));
  CHECK(*ssd.storage->disk_ms == Approx((1998 * 0.1 + 2 * 0.2) / 2000));
  CHECK(ssd.peak_rate > 5 * hdd.peak_rate);
  // A placeholder that names no factor is refused where it is written.
  std::string bad = text;
  bad.replace(bad.find("{disk}.json"), 11, "{device}.json");
  std::ofstream(dir / "bad.toml") << bad;
  CHECK_THROWS_WITH(wb::Config::load((dir / "bad.toml").string()),
                    Catch::Contains("bad.toml:11:model.storage.disk") && Catch::Contains("'{device}'"));
  fs::remove_all(dir);
}

TEST_CASE("a trace per workload level and a classifier give Z-CART each level's I/O class shares") {
  const fs::path dir = fs::temp_directory_path() / ("wb_storage_classes_" + std::to_string(getpid()));
  fs::create_directories(dir);
  // Level "hot" reads come back in ~50 us (a cache), level "cold" in ~5 ms (a disk); sizes vary.
  auto trace = [](double seconds) {
    std::vector<IoOp> ops = loop(200, 2);
    std::mt19937_64 rng(3);
    std::lognormal_distribution<double> spread(0, 0.1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      ops[i].size = 4096 * (1 + i % 4);
      ops[i].duration_s = seconds * spread(rng) * (1 + 0.1 * static_cast<double>(i % 4));
    }
    return ops;
  };
  const std::vector<IoOp> hot = trace(50e-6), cold = trace(5e-3);
  {
    std::ofstream h(dir / "hot.csv"), c(dir / "cold.csv");
    wb::write_io_trace(h, hot);
    wb::write_io_trace(c, cold);
  }
  const std::vector<wb::CalibrationSet> sets{{"cache", hot}, {"disk", cold}};
  std::ofstream(dir / "io.json") << wb::IoClassifier::calibrate(sets).to_json().dump();
  std::ofstream(dir / "classes.toml") << R"([testbed]
name = "classes"
[factors.mix]
levels = ["hot", "cold"]
[peak]
r_sat_ms = 20
width = 0.1
[model.storage]
trace = "{mix}.csv"
cache_mb = 0.5
classifier = "io.json"
[[model.center]]
name = "disk"
service_ms = 5
visits = "{disk_visits}"
)";
  const wb::Config config = wb::Config::load((dir / "classes.toml").string());
  const wb::ZCartAttributes attributes(config);
  auto index = [&](const std::string& name) { return attribute_index(attributes, name); };
  const std::size_t cache = index("cache_fraction"), disk = index("disk_fraction");
  CHECK(attributes.factors_of(cache) == std::vector<std::string>{"mix"});
  wb::Sample h, c;
  h.set("mix", "hot");
  c.set("mix", "cold");
  const auto ah = attributes.encode(h), ac = attributes.encode(c);
  REQUIRE(ah);
  REQUIRE(ac);
  CHECK((*ah)[cache] > 0.9);
  CHECK((*ah)[disk] < 0.1);
  CHECK((*ac)[disk] > 0.9);
  fs::remove_all(dir);
}
