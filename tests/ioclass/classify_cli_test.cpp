// `workbench classify` and `workbench classify calibrate` as a user runs them: labelled traces in,
// a classifier file, a mixed trace's shares out; bad input refused with one line and exit code 2.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/workbench_cli.hpp"

namespace {

using namespace std::chrono_literals;

// A trace CSV of `n` reads: a cache hit (5 us + size / 10 GB/s) or a disk read (2 ms + size / 200 MB/s),
// times log-normal noise; `cache_share` of them cache hits. Returns how many were.
std::size_t write_trace(const std::filesystem::path& path, std::size_t n, double cache_share, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution is_cache(cache_share);
  std::normal_distribution<double> noise(0, 0.25);
  const std::uint64_t sizes[] = {4096, 65536, 1048576};
  std::ofstream out(path);
  out << "op,file,offset,size,start_s,duration_s\n";
  std::size_t cached = 0;
  for (std::size_t i = 0; i < n; ++i) {
    bool cache = is_cache(rng);
    cached += cache ? 1 : 0;
    std::uint64_t size = sizes[i % 3];
    double t = cache ? 5e-6 + static_cast<double>(size) / 10e9 : 2e-3 + static_cast<double>(size) / 200e6;
    out << fmt::format("read,data,0,{},{},{}\n", size, 0.001 * static_cast<double>(i),
                       t * std::exp(noise(rng)));
  }
  return cached;
}

}  // namespace

TEST_CASE("classify calibrate writes a classifier that classify uses on a mixed trace") {
  auto dir = wb::test::temp_dir("ioclass", "roundtrip");
  write_trace(dir / "hits.csv", 300, 1.0, 1);
  write_trace(dir / "uncached.csv", 300, 0.0, 2);
  std::size_t cached = write_trace(dir / "app.csv", 1000, 0.3, 3);
  std::string model = (dir / "io.json").string();
  auto cal =
      wb::test::run_workbench({"classify", "calibrate", "--class", "cache=" + (dir / "hits.csv").string(),
                               "--class", "disk=" + (dir / "uncached.csv").string(), "--out", model},
                              60s);
  INFO(cal.err);
  REQUIRE(cal.exit_code == 0);
  CHECK_THAT(cal.out, Catch::Contains("cache") && Catch::Contains("disk"));
  auto r = wb::test::run_workbench({"classify", "--calibration", model, (dir / "app.csv").string(), "--json"},
                                   60s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["operations"] == 1000);
  CHECK(j["labels"].size() == 1000);
  REQUIRE(j["classes"].size() == 2);
  CHECK(j["classes"][0]["name"] == "cache");
  CHECK(j["classes"][0]["share"].get<double>() == Approx(static_cast<double>(cached) / 1000).margin(0.02));
  auto text = wb::test::run_workbench({"classify", "--calibration", model, (dir / "app.csv").string()}, 60s);
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("1000 operations") && Catch::Contains("%"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("classify refuses bad input with one line and exit code 2") {
  auto dir = wb::test::temp_dir("ioclass", "refused");
  write_trace(dir / "app.csv", 10, 0.5, 4);
  std::string trace = (dir / "app.csv").string();
  wb::test::check_refused({"classify", trace}, "--calibration", 30s);
  std::ofstream(dir / "bad.json") << "{not json";
  wb::test::check_refused({"classify", "--calibration", (dir / "bad.json").string(), trace}, "not JSON", 30s);
  std::ofstream(dir / "wrong.json") << R"({"kind": "io_classifier", "version": 1, "classes": []})";
  wb::test::check_refused({"classify", "--calibration", (dir / "wrong.json").string(), trace}, "classes",
                          30s);
  wb::test::check_refused({"classify", "calibrate", "--class", "cache", "--out", (dir / "io.json").string()},
                          "NAME=TRACE.csv", 30s);
  wb::test::check_refused({"classify", "calibrate", "--class", "cache=" + (dir / "missing.csv").string(),
                           "--out", (dir / "io.json").string()},
                          "missing.csv", 30s);
  CHECK_FALSE(std::filesystem::exists(dir / "io.json"));
  auto help = wb::test::run_workbench({"classify", "--help"}, 30s);
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("Example") && Catch::Contains("classify calibrate --class"));
  std::filesystem::remove_all(dir);
}
