// The pure half of `workbench disk calibrate` (models/disk_calibration.hpp): fio's command lines,
// fio 3.33's JSON read back (captured by capture.sh, and broken copies), sizes, and the four
// runs turned into DiskParams.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "models/disk_calibration.hpp"

namespace {

const std::string kCaptured = std::string(WB_SOURCE_DIR) + "/tests/disk/";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool has(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

std::string refusal_of_size(const std::string& text) {
  try {
    wb::parse_byte_size(text);
  } catch (const wb::InputError& e) {
    return e.what();
  }
  return "accepted";
}

std::string refusal_of_plan(const wb::DiskCalibrationPlan& plan) {
  try {
    wb::check_disk_calibration_plan(plan);
  } catch (const wb::InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("fio's command line for each calibration run") {
  wb::DiskCalibrationPlan plan;
  plan.file = "/var/tmp/a:b";
  plan.runtime_s = 1.5;
  auto seq = wb::fio_calibration_argv(plan, wb::DiskRun::kSeqWrite, true);
  CHECK(seq.front() == "fio");
  CHECK(has(seq, "--rw=write"));
  CHECK(has(seq, "--bs=1048576"));
  CHECK(has(seq, "--size=268435456"));
  CHECK(has(seq, "--direct=1"));
  CHECK(has(seq, "--ioengine=psync"));
  CHECK(has(seq, "--time_based"));
  CHECK(has(seq, "--runtime=1500000us"));
  CHECK(has(seq, "--output-format=json"));
  CHECK(has(seq, "--filename=/var/tmp/a\\:b"));  // fio splits file names at an unescaped ':'
  plan.iodepth = 8;
  auto rand = wb::fio_calibration_argv(plan, wb::DiskRun::kRandRead, false);
  CHECK(has(rand, "--rw=randread"));
  CHECK(has(rand, "--bs=4096"));
  CHECK(has(rand, "--direct=0"));
  CHECK(has(rand, "--ioengine=libaio"));
  CHECK(has(rand, "--iodepth=8"));
}

TEST_CASE("a random-read run of fio 3.33 reads into its figures") {
  auto out = wb::parse_fio_run(read_text(kCaptured + "fio_randread.json"), wb::DiskRun::kRandRead, 4096);
  CHECK(out.error == 0);
  CHECK(out.fio_version == "fio-3.33");
  CHECK(out.timestamp == 1795874715);
  CHECK(out.figures.name == "rand_read");
  CHECK(out.figures.rw == "randread");
  CHECK(out.figures.block_size == 4096);
  CHECK(out.figures.bw_bps == 8192000);
  CHECK(out.figures.iops == 2000);
  CHECK(out.figures.runtime_s == Approx(0.302));
  CHECK(out.figures.io_bytes == 2473984);
  // What fio says it moved over the time it ran is its bandwidth.
  CHECK(static_cast<double>(out.figures.io_bytes) / out.figures.runtime_s ==
        Approx(out.figures.bw_bps).epsilon(0.01));
}

TEST_CASE("fio's refusal of O_DIRECT, after its notes on stdout, reads as error 22") {
  auto out = wb::parse_fio_run(read_text(kCaptured + "fio_direct_refused.txt"), wb::DiskRun::kSeqRead, 1000);
  CHECK(out.error == 22);
}

TEST_CASE("broken fio output is refused naming what is missing") {
  const std::string good = read_text(kCaptured + "fio_randread.json");
  CHECK_THROWS_MATCHES(wb::parse_fio_run("fio: engine libaio not loadable\n", wb::DiskRun::kSeqRead, 4096),
                       wb::InputError,
                       Catch::Message("fio printed no JSON document (no line starting with '{')"));
  CHECK_THROWS_WITH(wb::parse_fio_run(good.substr(0, good.size() / 2), wb::DiskRun::kRandRead, 4096),
                    Catch::StartsWith("fio's output is not JSON"));
  // A write run looks for the write direction, which this read run has with no bytes.
  auto write = wb::parse_fio_run(good, wb::DiskRun::kRandWrite, 4096);
  CHECK(write.figures.bw_bps == 0);
  std::string no_bw = good;
  no_bw.replace(no_bw.find("\"bw_bytes\""), 10, "\"bw_bytez\"");
  CHECK_THROWS_MATCHES(wb::parse_fio_run(no_bw, wb::DiskRun::kRandRead, 4096), wb::InputError,
                       Catch::Message("fio output .jobs[0].read.bw_bytes: missing"));
  CHECK_THROWS_MATCHES(wb::parse_fio_run("{\"fio version\": \"fio-3.33\", \"timestamp\": 1, \"jobs\": []}",
                                         wb::DiskRun::kRandRead, 4096),
                       wb::InputError, Catch::Message("fio output .jobs: not a list of one job"));
}

TEST_CASE("sizes read as fio reads them, powers of 1024") {
  CHECK(wb::parse_byte_size("4096") == 4096);
  CHECK(wb::parse_byte_size("4k") == 4096);
  CHECK(wb::parse_byte_size("4K") == 4096);
  CHECK(wb::parse_byte_size("4KiB") == 4096);
  CHECK(wb::parse_byte_size("1M") == 1048576);
  CHECK(wb::parse_byte_size("256m") == 256ull << 20);
  CHECK(wb::parse_byte_size("2g") == 2ull << 30);
  CHECK(wb::parse_byte_size("1T") == 1ull << 40);
  CHECK(wb::parse_byte_size("512b") == 512);
  CHECK(refusal_of_size("") == "'' is not a size (bytes, or with K, M, G or T)");
  CHECK(refusal_of_size("12X") == "'12X' is not a size (bytes, or with K, M, G or T)");
  CHECK(refusal_of_size("-1") == "'-1' is not a size (bytes, or with K, M, G or T)");
  CHECK(refusal_of_size("1.5M") == "'1.5M' is not a size (bytes, or with K, M, G or T)");
  CHECK(refusal_of_size("0") == "'0' is not a size from 1 byte to 1 PiB");
  CHECK(refusal_of_size("2000T") == "'2000T' is not a size from 1 byte to 1 PiB");
  CHECK(refusal_of_size("99999999999999999999999") ==
        "'99999999999999999999999' is not a size from 1 byte to 1 PiB");
  CHECK(wb::format_byte_size(1048576) == "1 MiB");
  CHECK(wb::format_byte_size(4096) == "4 KiB");
  CHECK(wb::format_byte_size(1000) == "1000 B");
  CHECK(wb::format_byte_size(3ull << 30) == "3 GiB");
}

TEST_CASE("a calibration plan the runs cannot use is refused naming the flag") {
  wb::DiskCalibrationPlan plan;
  plan.file = "/var/tmp/x";
  CHECK(refusal_of_plan(plan) == "accepted");
  auto bad = plan;
  bad.rand_block_size = 1ull << 30;
  bad.file_size = 16ull << 20;
  CHECK(refusal_of_plan(bad) == "--rand-bs 1 GiB: larger than --size 16 MiB");
  bad = plan;
  bad.seq_block_size = 2ull << 30;
  CHECK(refusal_of_plan(bad) == "--seq-bs 2147483648: not from 1 byte to 1 GiB");
  bad = plan;
  bad.runtime_s = 0.01;
  CHECK(refusal_of_plan(bad) == "--runtime 0.01: not from 0.1 to 86400 seconds");
  bad = plan;
  bad.iodepth = 0;
  CHECK(refusal_of_plan(bad) == "--iodepth 0: not from 1 to 4096");
  bad = plan;
  bad.file.clear();
  CHECK(refusal_of_plan(bad) == "--file: give the file or device fio measures");
}

TEST_CASE("the four runs become the four bandwidths, the random block size random_io_size") {
  std::vector<wb::FioRunFigures> runs = {{"rand_write", "randwrite", 4096, 1.5e7, 3700, 2, 30000000},
                                         {"seq_read", "read", 1048576, 8e8, 760, 2, 1600000000},
                                         {"rand_read", "randread", 4096, 2.2e7, 5400, 2, 44000000},
                                         {"seq_write", "write", 1048576, 9e8, 860, 2, 1800000000}};
  const wb::DiskParams p = wb::disk_params_from_runs(runs, 4096);
  CHECK(p.seq_read_bps == 8e8);
  CHECK(p.seq_write_bps == 9e8);
  CHECK(p.rand_read_bps == 2.2e7);
  CHECK(p.rand_write_bps == 1.5e7);
  CHECK(p.random_io_size == 4096);
  runs[2].bw_bps = 0;
  CHECK_THROWS_MATCHES(wb::disk_params_from_runs(runs, 4096), wb::Error,
                       Catch::Message("fio's random read run moved no bytes (0 bytes/s over 2 s)"));
  runs.erase(runs.begin() + 2);
  CHECK_THROWS_MATCHES(wb::disk_params_from_runs(runs, 4096), wb::Error,
                       Catch::Message("no random read run"));
}

TEST_CASE("fio's timestamp as an ISO 8601 date") {
  CHECK(wb::iso8601_utc(0) == "1970-01-01T00:00:00Z");
  CHECK(wb::iso8601_utc(1795874715) == "2026-11-28T14:05:15Z");
}
