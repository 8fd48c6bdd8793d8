// parse_fio_json on outputs captured from fio 3.33 (tests/harness/fio/capture.sh) and on broken
// copies of them, and the fio adapter's command line.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "harness/generator_adapter.hpp"
#include "harness/testbed_config.hpp"
#include "workloads/result.hpp"

namespace {

using nlohmann::json;

std::string fio_fixture(const std::string& name) {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/tests/harness/fio/" + name + ".json");
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE(!ss.str().empty());
  return ss.str();
}

// The fixture's JSON document (after fio's "note:" lines, if any).
json fio_doc(const std::string& text) { return json::parse(text.substr(text.find('{'))); }

// What one job's schedule offers for rate_iops `iops`: a gap of 1e6/iops whole µs, less 0.5 on
// average after fio truncates each Poisson gap.
double offered(long iops) { return 1e6 / (static_cast<double>(1000000 / iops) - 0.5); }

// What capture.sh asked fio for: `rate` I/Os per second, a 1 s window after 0.3 s.
wb::GeneratorRun fio_run(double rate, double timeout_s = 1) {
  wb::GeneratorRun run;
  run.rate = rate;
  run.duration_s = 1;
  run.warmup_s = 0.3;
  run.timeout_s = timeout_s;
  return run;
}

// Σ over jobs and directions of a count in fio's own figures.
std::uint64_t fio_sum(const json& j, const char* dir_key, const char* clat_key = nullptr) {
  std::uint64_t n = 0;
  for (const auto& job : j["jobs"]) {
    for (const char* d : {"read", "write", "trim"}) {
      n += clat_key ? job[d][dir_key][clat_key].get<std::uint64_t>() : job[d][dir_key].get<std::uint64_t>();
    }
  }
  return n;
}

void check_fio_rejects(const json& doc, const wb::GeneratorRun& run, const std::string& names) {
  INFO(doc.dump().substr(0, 200));
  CHECK_THROWS_WITH(wb::parse_fio_json(doc.dump(), run), Catch::Contains(names));
}

}  // namespace

TEST_CASE("parse_fio_json reads every bin of a two-job random read exactly") {
  const std::string text = fio_fixture("randread");
  const json doc = fio_doc(text);
  const wb::LoadResult r = wb::parse_fio_json(text, fio_run(400));
  CHECK(r.completed == fio_sum(doc, "clat_ns", "N"));
  CHECK(r.completed > 250);
  CHECK(r.histogram.count() == r.completed);
  CHECK(r.error_total() == 0);
  CHECK(r.timeouts == 0);
  CHECK(r.sent == r.completed);
  CHECK(r.achieved_rate == Approx(static_cast<double>(r.completed)));
  // The bins' values themselves: the histogram's mean is fio's clat mean (bins are exact to ~1%).
  double sum = 0;
  for (const auto& job : doc["jobs"])
    sum += job["read"]["clat_ns"]["mean"].get<double>() * job["read"]["clat_ns"]["N"].get<double>();
  CHECK(r.histogram.mean_ns() == Approx(sum / static_cast<double>(r.completed)).epsilon(0.02));
  CHECK(r.offered_rate == Approx(2 * offered(200)));
  CHECK_NOTHROW(wb::check_result(r, wb::LoadRequest{r.offered_rate, 1, 0.3, 1}));
}

TEST_CASE("parse_fio_json adds the reads and writes of a mixed job") {
  const std::string text = fio_fixture("randrw");
  const json doc = fio_doc(text);
  const wb::LoadResult r = wb::parse_fio_json(text, fio_run(300));
  const auto reads = doc["jobs"][0]["read"]["clat_ns"]["N"].get<std::uint64_t>();
  const auto writes = doc["jobs"][0]["write"]["clat_ns"]["N"].get<std::uint64_t>();
  CHECK(reads > 0);
  CHECK(writes > 0);
  CHECK(r.completed == reads + writes);
  CHECK(r.offered_rate == Approx(offered(210) + offered(90)));
  CHECK_NOTHROW(wb::check_result(r, wb::LoadRequest{r.offered_rate, 1, 0.3, 1}));
}

TEST_CASE("parse_fio_json counts what fio could not issue on schedule as timeouts") {
  const std::string text = fio_fixture("overload");
  const json doc = fio_doc(text);
  // rate_iops 200000: fio's gap is 5 µs, 4.5 µs on average after truncation.
  const wb::LoadResult r = wb::parse_fio_json(text, fio_run(1e6 / 4.5));
  const std::uint64_t issued = fio_sum(doc, "total_ios");
  CHECK(r.completed < 100000);
  CHECK(r.timeouts == static_cast<std::uint64_t>(std::llround(1e6 / 4.5)) - issued);
  CHECK(r.offered_rate == Approx(1e6 / 4.5));
  CHECK_NOTHROW(wb::check_result(r, wb::LoadRequest{1e6 / 4.5, 1, 0.3, 1}));
}

TEST_CASE("parse_fio_json skips fio's notes before the JSON document") {
  const std::string text = fio_fixture("notes");
  REQUIRE(text.rfind("note:", 0) == 0);
  const wb::LoadResult r = wb::parse_fio_json(text, fio_run(100));
  CHECK(r.completed == fio_sum(fio_doc(text), "clat_ns", "N"));
  CHECK_NOTHROW(wb::check_result(r, wb::LoadRequest{offered(100), 1, 0.3, 1}));
}

TEST_CASE("parse_fio_json counts I/Os slower than the timeout as timeouts, as wbload does") {
  const std::string text = fio_fixture("randread");
  const wb::LoadResult all = wb::parse_fio_json(text, fio_run(400));
  const double median_s = static_cast<double>(all.histogram.percentile_ns(50)) / 1e9;
  const wb::LoadResult r = wb::parse_fio_json(text, fio_run(400, median_s));
  CHECK(r.timeouts > 0);
  CHECK(r.completed + r.timeouts == all.completed);
  CHECK(static_cast<double>(r.histogram.max_ns()) <= median_s * 1e9);
  CHECK_NOTHROW(wb::check_result(r, wb::LoadRequest{2 * offered(200), 1, 0.3, median_s}));
}

TEST_CASE("parse_fio_json counts failed and dropped I/Os as errors") {
  json doc = fio_doc(fio_fixture("randread"));
  doc["jobs"][0]["total_err"] = 3;
  doc["jobs"][1]["read"]["drop_ios"] = 2;
  const wb::LoadResult r = wb::parse_fio_json(doc.dump(), fio_run(400));
  CHECK(r.errors.at("io") == 3);
  CHECK(r.errors.at("dropped") == 2);
  doc["jobs"][0].erase("total_err");
  doc["jobs"][0]["error"] = 5;  // EIO stopped that job
  CHECK(wb::parse_fio_json(doc.dump(), fio_run(400)).errors.at("io") == 1);
}

TEST_CASE("parse_fio_json names the field of an impossible fio output") {
  const json good = fio_doc(fio_fixture("randread"));
  const wb::GeneratorRun run = fio_run(400);
  CHECK_THROWS_AS(wb::parse_fio_json("fio: unrecognized option '--bogus'\n", run), wb::InputError);
  CHECK_THROWS_AS(wb::parse_fio_json("{\"jobs\": [", run), wb::InputError);
  check_fio_rejects(json{{"jobs", json::array()}}, run, ".jobs");
  json j = good;
  j["jobs"][0]["read"].erase("total_ios");
  check_fio_rejects(j, run, ".jobs[0].read.total_ios: missing");
  j = good;
  j["jobs"][1]["read"]["total_ios"] = -4;
  check_fio_rejects(j, run, ".jobs[1].read.total_ios");
  j = good;
  j["jobs"][0]["read"]["short_ios"] = j["jobs"][0]["read"]["total_ios"].get<int>() + 1;
  check_fio_rejects(j, run, ".jobs[0].read.short_ios");
  j = good;
  j["jobs"][0]["read"]["clat_ns"]["N"] = j["jobs"][0]["read"]["clat_ns"]["N"].get<int>() + 1;
  check_fio_rejects(j, run, ".jobs[0].read.clat_ns.bins: hold");
  j = good;
  j["jobs"][0]["read"]["clat_ns"].erase("bins");  // --output-format=json, not json+
  check_fio_rejects(j, run, ".jobs[0].read.clat_ns.bins: missing");
  j = good;
  j["jobs"][0]["read"]["clat_ns"]["bins"]["-12"] = 1;
  check_fio_rejects(j, run, "'-12' is not a latency");
  j = good;
  j["jobs"][0]["error"] = "EIO";
  check_fio_rejects(j, run, ".jobs[0].error");
  j = good;
  j.erase("global options");
  check_fio_rejects(j, run, "rate_iops: missing");
  j = good;
  j["global options"]["rate_iops"] = "0";  // fio's "no limit": nothing was offered at a rate
  check_fio_rejects(j, run, "none (no limit)");
  j["global options"]["rate_iops"] = "2000000";
  check_fio_rejects(j, run, "'2000000' is not whole I/O rates");
  // 60 jobs at fio's highest rate: 1.2e8 I/Os per second in all, beyond any trial's rate.
  j = good;
  j["global options"]["rate_iops"] = "1000000";
  for (int k = 0; k < 58; ++k) j["jobs"].push_back(good["jobs"][0]);
  check_fio_rejects(j, run, "more than 1e+08");
}

TEST_CASE("the fio adapter splits λ over jobs and directions and sets the window") {
  wb::WorkloadConfig w;
  w.generator = wb::GeneratorKind::kFio;
  w.args = {"--name=wb", "--rw={rw}", "--rwmixread=70", "--numjobs={jobs}"};
  auto adapter = wb::make_generator_adapter(w);
  wb::GeneratorRun run;
  run.program = "/usr/bin/fio";
  run.values = {{"rw", "randread"}, {"jobs", "4"}};
  run.rate = 1000;
  run.duration_s = 2.5;
  run.warmup_s = 0.5;
  run.seed = 77;
  auto argv = adapter->argv(run);
  const std::vector<std::string> head{
      "/usr/bin/fio",         "--rate_iops=250",     "--rate_process=poisson", "--time_based",
      "--ramp_time=500000us", "--runtime=2500000us", "--output-format=json+",  "--randseed=77"};
  CHECK(std::vector<std::string>(argv.begin(), argv.begin() + 8) == head);
  CHECK(argv.back() == "--numjobs=4");
  run.values["rw"] = "randrw";
  CHECK(adapter->argv(run)[1] == "--rate_iops=175,75");
  // fio's gaps are whole µs (less 0.5 on average): 30000/s is 33 µs, which is 30769/s, or 34.
  run.values = {{"rw", "randread"}, {"jobs", "1"}};
  run.rate = 30000;
  CHECK(adapter->argv(run)[1] == "--rate_iops=29411");
  run.rate = 0.2;
  CHECK_THROWS_WITH(adapter->argv(run), Catch::Contains("below fio's least rate"));
}

TEST_CASE("the fio adapter states the rate fio's whole-µs schedule offers, as fio's output does") {
  wb::WorkloadConfig w;
  w.generator = wb::GeneratorKind::kFio;
  w.args = {"--name=wb", "--rw=randread", "--numjobs={jobs}"};
  auto adapter = wb::make_generator_adapter(w);
  wb::GeneratorRun run;
  run.program = "fio";
  run.values = {{"jobs", "2"}};
  // 40,000/s a job lies between the gaps of 25 µs (40,816/s) and 26 µs (39,216/s): 2 % either way,
  // more than Poisson noise over a 3 s trial, so the trial is checked against what fio offers.
  run.rate = 80000;
  CHECK(adapter->argv(run)[1] == "--rate_iops=38461");
  CHECK(adapter->offered_rate(run) == Approx(2 * offered(38461)));
  CHECK(adapter->offered_rate(run) == Approx(2e6 / 25.5));
  run.values = {{"jobs", "1"}};
  run.rate = 100;
  CHECK(adapter->offered_rate(run) == Approx(offered(100)));
  CHECK(adapter->offered_rate(run) == Approx(100).epsilon(1e-3));
  // The fixture's own schedule: what the adapter states is what the parsed output says was offered.
  w.args = {"--name=wb", "--rw=randread", "--bs=4k", "--iodepth=4", "--numjobs=2"};
  run = fio_run(400);
  CHECK(wb::make_generator_adapter(w)->offered_rate(run) ==
        Approx(wb::parse_fio_json(fio_fixture("randread"), run).offered_rate));
}

TEST_CASE("the fio adapter refuses arguments that set what workbench owns") {
  for (const char* a : {"--rate_iops=100", "--runtime=10", "-ramp_time=1", "--output-format=json",
                        "--randseed=3", "--time_based", "--rate_process=linear", "--group_reporting"}) {
    INFO(a);
    CHECK_THAT(wb::fio_owned_option(a), Catch::Contains("workbench sets"));
  }
  for (const char* a :
       {"--rw=randread", "--bs=4k", "--iodepth=8", "--name=wb", "--rwmixread=70", "data.fio"}) {
    INFO(a);
    CHECK(wb::fio_owned_option(a).empty());
  }
  wb::WorkloadConfig w;
  w.generator = wb::GeneratorKind::kFio;
  w.args = {"--name=wb", "--runtime=5"};
  CHECK_THROWS_AS(wb::make_generator_adapter(w), wb::InputError);
}
