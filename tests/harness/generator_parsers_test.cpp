// The adapters' output parsers and [workload] generator settings: pgbench's per-transaction log and
// a command's JSON output turn into LoadResults that pass wbload's checks, counted by scheduled
// start; anything impossible or missing is one InputError naming it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "core/config.hpp"
#include "core/error.hpp"
#include "harness/generator_adapter.hpp"
#include "harness/testbed_config.hpp"
#include "workloads/result.hpp"

namespace {

using wb::GeneratorRun;
using wb::LoadResult;

GeneratorRun pg_run() {
  GeneratorRun run;
  run.rate = 100;
  run.duration_s = 2;
  run.warmup_s = 1;
  run.timeout_s = 0.5;
  return run;
}

// A pgbench log line for a transaction scheduled at `start_ms` after t0 = 1,700,000,000 s that took
// `latency_us` (or "skipped"/"failed" in the time column, ending at start_ms).
std::string pg_line(int client, double start_ms, const std::string& time, long latency_us = 0) {
  const long long t0_us = 1700000000LL * 1000000;
  long long done = t0_us + static_cast<long long>(start_ms * 1000) + latency_us;
  return fmt::format("{} 1 {} 0 {} {} 0\n", client, time, done / 1000000, done % 1000000);
}

std::string pg_done(int client, double start_ms, long latency_us) {
  return pg_line(client, start_ms, std::to_string(latency_us), latency_us);
}

// A command run of 2 s at 50/s, and a map with only the two required pointers.
GeneratorRun json_run() {
  GeneratorRun run;
  run.rate = 50;
  run.duration_s = 2;
  return run;
}

wb::JsonOutputMap required_map() {
  wb::JsonOutputMap map;
  map.completed = "/ok";
  map.latencies = "/lat";
  return map;
}

}  // namespace

TEST_CASE("pgbench log: counted by scheduled start within the window after the warm-up") {
  GeneratorRun run = pg_run();
  std::string log;
  log += pg_done(0, 0, 2000);          // t0: in the warm-up
  log += pg_done(1, 999, 5000);        // warm-up, completes inside the window: counts for the rate only
  log += pg_done(0, 1000, 1000);       // window starts at 1000 ms
  log += pg_done(1, 1500, 400000);     // 400 ms: under the 0.5 s timeout
  log += pg_done(0, 2000, 600000);     // 600 ms: answered after the timeout
  log += pg_line(1, 2500, "skipped");  // never sent: skipped at its turn
  log += pg_line(0, 2600, "failed");   // the server said no
  log += pg_done(1, 2999, 3000);       // last in the window; completes after it
  log += pg_done(0, 3000, 1000);       // first after the window
  LoadResult r = wb::parse_pgbench_log(log, run);
  CHECK(r.completed == 3);
  CHECK(r.timeouts == 2);
  CHECK(r.sent == 5);
  CHECK(r.errors.at("failed") == 1);
  CHECK(r.histogram.count() == 3);
  CHECK(r.histogram.max_ns() >= 399'000'000);
  CHECK(r.histogram.min_ns() <= 1'001'000);
  // Responses received in [1000, 3000) ms: the warm-up one at 1004 ms and 1001, 1900 ms.
  CHECK(r.achieved_rate == Approx(3.0 / 2));
  CHECK(r.offered_rate == 100);
  wb::check_result(r);
}

TEST_CASE("pgbench log: a run at its rate passes check_result with what it was asked") {
  GeneratorRun run = pg_run();
  std::string log;
  for (int i = 0; i < 320; ++i) log += pg_done(i % 4, i * 10.0, 1500);  // 100/s for 3.2 s
  LoadResult r = wb::parse_pgbench_log(log, run);
  CHECK(r.completed == 200);
  CHECK(r.achieved_rate == Approx(100));
  CHECK(r.histogram.mean_ns() == Approx(1.5e6).epsilon(0.01));
  wb::check_result(r, wb::LoadRequest{run.rate, run.duration_s, run.warmup_s, run.timeout_s});
}

TEST_CASE("pgbench log: garbage is one InputError naming the line") {
  GeneratorRun run = pg_run();
  CHECK_THROWS_WITH(wb::parse_pgbench_log("", run), "pgbench logged no transaction");
  CHECK_THROWS_WITH(wb::parse_pgbench_log(pg_done(0, 0, 10) + "0 1 12 0 1700000000\n", run),
                    Catch::Contains("line 2: 5 fields"));
  CHECK_THROWS_WITH(wb::parse_pgbench_log("0 1 -5 0 1700000000 5 0\n", run),
                    Catch::Contains("line 1: time '-5'"));
  CHECK_THROWS_WITH(wb::parse_pgbench_log("0 1 5 0 1700000000 1000000 0\n", run),
                    Catch::Contains("impossible"));
  CHECK_THROWS_AS(wb::parse_pgbench_log("pgbench: error: connection refused\n", run), wb::InputError);
}

TEST_CASE("command JSON output: pointers, latency forms and units") {
  const GeneratorRun run = json_run();
  wb::JsonOutputMap map = required_map();
  map.latency_unit = "us";

  LoadResult a = wb::parse_json_output(R"({"ok": 3, "lat": [100, 200, 300]})", map, run);
  CHECK(a.completed == 3);
  CHECK(a.sent == 3);
  CHECK(a.histogram.mean_ns() == Approx(200'000).epsilon(0.01));
  CHECK(a.achieved_rate == Approx(1.5));
  wb::check_result(a);

  LoadResult b = wb::parse_json_output(R"({"ok": 5, "lat": [[100, 2], [250.5, 3]]})", map, run);
  CHECK(b.histogram.count() == 5);
  CHECK(b.histogram.max_ns() == Approx(250'500).epsilon(0.005));

  map.latency_unit = "ms";
  map.errors = "/err/total";
  map.timeouts = "/late";
  map.sent = "/sent";
  map.achieved_rate = "/tput";
  LoadResult c = wb::parse_json_output(
      R"({"ok": 4, "lat": {"1.5": 3, "7": 1}, "err": {"total": 2}, "late": 1, "sent": 6, "tput": 1.74})", map,
      run);
  CHECK(c.errors.at("reported") == 2);
  CHECK(c.timeouts == 1);
  CHECK(c.sent == 6);
  CHECK(c.histogram.max_ns() == Approx(7e6).epsilon(0.005));
  CHECK(c.achieved_rate == Approx(1.5));  // 1.74/s over 2 s: 3.48 rounds to 3 whole responses
  wb::check_result(c);
}

TEST_CASE("command JSON output: what is missing or impossible is named") {
  const GeneratorRun run = json_run();
  wb::JsonOutputMap map = required_map();
  CHECK_THROWS_WITH(wb::parse_json_output("done: 3 requests", map, run),
                    Catch::StartsWith("stdout is not one JSON"));
  CHECK_THROWS_WITH(wb::parse_json_output("18446744e72222222", map, run),  // beyond every number type
                    Catch::StartsWith("stdout is not one JSON"));
  CHECK_THROWS_WITH(wb::parse_json_output(R"({"lat": []})", map, run),
                    Catch::Contains("nothing at /ok (workload.output.completed)"));
  CHECK_THROWS_WITH(wb::parse_json_output(R"({"ok": 2, "lat": [1]})", map, run),
                    Catch::Contains("holds 1 latencies but output/ok says 2"));
  CHECK_THROWS_WITH(wb::parse_json_output(R"({"ok": -2, "lat": []})", map, run),
                    Catch::Contains("whole number"));
  CHECK_THROWS_WITH(wb::parse_json_output(R"({"ok": 1, "lat": [-1]})", map, run),
                    Catch::Contains("negative"));
  CHECK_THROWS_WITH(wb::parse_json_output(R"({"ok": 1, "lat": ["1"]})", map, run),
                    Catch::Contains("must be a number"));
  CHECK_THROWS_WITH(wb::parse_json_output(R"({"ok": 1, "lat": 1})", map, run),
                    Catch::Contains("an array or an object"));
  map.sent = "/sent";
  LoadResult r = wb::parse_json_output(R"({"ok": 2, "lat": [1, 2], "sent": 1})", map, run);
  CHECK_THROWS_AS(wb::check_result(r), wb::InputError);  // completed > sent: the runner rejects it
}

namespace {

// A testbed whose [workload] is `workload`; the generator settings are on lines 13 onwards.
wb::TestbedConfig generator_testbed(const std::string& workload) {
  std::string text =
      "[testbed]\nname = \"g\"\n[factors.clients]\nlevels = [2, 8]\n[peak]\nr_sat_ms = 8\nwidth = 0.1\n"
      "[sut]\nstart = \"sleep 100\"\nready = \"tcp\"\nport = 7000\n[workload]\n" +
      workload;
  return wb::parse_testbed(wb::Config::parse(text, "gen.toml"));
}

}  // namespace

TEST_CASE("[workload] generator settings: accepted, and bad ones named by file:line:key") {
  wb::TestbedConfig pg = generator_testbed(
      "generator = \"pgbench\"\nconnections = \"{clients}\"\nthreads = 2\nargs = [\"-p\", \"{port}\", "
      "\"bench\"]\n");
  CHECK(pg.workload.generator == wb::GeneratorKind::kPgbench);
  CHECK(pg.workload.program == "pgbench");
  CHECK(pg.workload.connections_for({{"clients", "8"}}) == 8);

  wb::TestbedConfig cmd = generator_testbed(
      "generator = \"command\"\ncommand = \"gen --rate {rate} --for {duration} --seed {seed} {target}\"\n"
      "[workload.output]\ncompleted = \"/n\"\nlatencies = \"/lat\"\nlatency_unit = \"us\"\n");
  CHECK(cmd.workload.output.latency_unit == "us");
  wb::TestbedConfig hdr = generator_testbed(
      "generator = \"command\"\ncommand = \"gen {rate}\"\n[workload.output]\nformat = \"hdr-log\"\n"
      "latency_unit = \"ns\"\n");
  CHECK(hdr.workload.output.format == "hdr-log");

  using Catch::Contains;
  CHECK_THROWS_WITH(generator_testbed("generator = \"wrk\"\n"),
                    Contains("gen.toml:13:workload.generator: must be"));
  CHECK_THROWS_WITH(generator_testbed("generator = \"pgbench\"\nprotocol = \"http\"\n"),
                    Contains("gen.toml:14:workload.protocol: is a wbload setting"));
  CHECK_THROWS_WITH(generator_testbed("generator = \"command\"\ncommand = \"gen {rate}\"\n"),
                    Contains("workload.command: needs [workload.output]"));
  CHECK_THROWS_WITH(generator_testbed("generator = \"command\"\ncommand = \"gen {rates}\"\n"),
                    Contains("gen.toml:14:workload.command:"));
  CHECK_THROWS_WITH(generator_testbed("generator = \"command\"\ncommand = "
                                      "\"gen\"\n[workload.output]\ncompleted = \"n\"\nlatencies = \"/l\"\n"),
                    Contains("workload.output.completed: is not a JSON pointer"));
  CHECK_THROWS_WITH(
      generator_testbed("generator = \"pgbench\"\nconnections = \"{clients}00000\"\n"),
      Contains("gen.toml:14:workload.connections: clients=2: connections '{clients}00000' gives "
               "'200000', not a whole number from 1 to 100000"));
  CHECK_THROWS_WITH(
      generator_testbed(
          "generator = \"command\"\ncommand = \"gen\"\n[workload.output]\nformat = \"hdr-log\"\n"),
      Contains("workload.output.latency_unit: required key is missing"));
  CHECK_THROWS_WITH(
      generator_testbed("generator = \"command\"\ncommand = \"gen\"\n[workload.output]\nformat = \"csv\"\n"),
      Contains("workload.output.format: must be \"json\""));
  CHECK_THROWS_WITH(generator_testbed("generator = \"pgbench\"\nconnections = \"{clients}\"\nthreads = 4\n"),
                    Contains("workload.threads: must be from 1 to 256 and at most connections (2)"));
}

namespace {

// Encoded histograms written by HdrHistogram's own implementations (public test fixtures): Java's
// (1, 1000, 0 digits) with 100 recorded; Java's and C's (1, 2048, 3) with 2048; (1, 300, 3) with
// 100, 200 and 250.
const char* const kHdrZeroDigits = "HISTFAAAAB14nJNpmSzMwMDAxIAKGCEU8wv7DxAWLxMASToDcw==";
const char* const kHdr2048 = "HISTFAAAACB4nJNpmSzMwMDAzAABMJoRQnEw2H+AsP7LMwEARZgDpQ==";
const char* const kHdr100_200_250 = "HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk";

std::string hdr_log(const std::vector<std::pair<double, std::string>>& intervals) {
  std::string text =
      "#[Histogram log format version 1.3]\n#[StartTime: 1441812279.474 (seconds since epoch)]\n"
      "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
  for (const auto& [start, h] : intervals) text += fmt::format("{:.3f},1.000,3.000,{}\n", start, h);
  return text;
}

}  // namespace

TEST_CASE("command hdr-log output: histograms HdrHistogram itself wrote, intervals after the warm-up") {
  GeneratorRun run;
  run.rate = 2;
  run.duration_s = 2;
  run.warmup_s = 1;
  wb::JsonOutputMap map;
  map.format = "hdr-log";
  map.latency_unit = "us";
  // The first interval starts inside the warm-up: dropped.
  LoadResult r = wb::parse_hdr_output(
      hdr_log({{10.5, kHdrZeroDigits}, {11.5, kHdr2048}, {12.5, kHdr100_200_250}}), map, run);
  CHECK(r.completed == 4);
  CHECK(r.sent == 4);
  CHECK(r.histogram.min_ns() == Approx(100'500).epsilon(0.005));  // 100 µs, the middle of [100, 101)
  CHECK(r.histogram.max_ns() == Approx(2'049'000).epsilon(0.005));
  CHECK(r.histogram.mean_ns() == Approx((100.5 + 200.5 + 250.5 + 2049) * 1000 / 4).epsilon(0.005));
  CHECK(r.achieved_rate == Approx(2));
  wb::check_result(r, wb::LoadRequest{run.rate, run.duration_s, run.warmup_s, run.timeout_s});

  // With no warm-up, the zero-digit histogram's 100 falls in [64, 128): its middle, 96 µs.
  run.warmup_s = 0;
  LoadResult all = wb::parse_hdr_output(hdr_log({{0, kHdrZeroDigits}}), map, run);
  CHECK(all.completed == 1);
  CHECK(all.histogram.max_ns() == Approx(96'000).epsilon(0.005));
}

TEST_CASE("command hdr-log output: what is not an HdrHistogram log is one InputError naming the line") {
  GeneratorRun run;
  run.duration_s = 1;
  wb::JsonOutputMap map;
  map.format = "hdr-log";
  map.latency_unit = "ms";
  using Catch::Contains;
  CHECK_THROWS_WITH(wb::parse_hdr_output("#only comments\n", map, run), Contains("no interval histogram"));
  CHECK_THROWS_WITH(wb::parse_hdr_output("0.0,1.0,HISTFAAAA\n", map, run), Contains("line 1: 3 fields"));
  CHECK_THROWS_WITH(wb::parse_hdr_output("0.0,1.0,2.0,HISTFAAAA!==\n", map, run),
                    Contains("hdr-log line 1: invalid base64"));
  // A valid base64 of something else: wbload's own histogram encoding is not HdrHistogram's.
  CHECK_THROWS_WITH(wb::parse_hdr_output("x,1.0,2.0,AAAA\n", map, run), Contains("must be numbers"));
  CHECK_THROWS_WITH(wb::parse_hdr_output("0.0,1.0,2.0,AAAAAAAAAAAA\n", map, run), Contains("(cookie)"));
  std::string cut = kHdr2048;
  cut = cut.substr(0, 24);  // the compressed bytes cut short
  CHECK_THROWS_AS(wb::parse_hdr_output("0.0,1.0,2.0," + cut + "\n", map, run), wb::InputError);
}
