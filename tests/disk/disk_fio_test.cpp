// `workbench disk calibrate` with the real fio on a scratch file in the temp folder (label
// integration: it measures the device): four bandwidths > 0 that read back through
// read_disk_params, and sequential reads of 1 MiB moving more bytes per second than random reads of
// 4 KiB, as on any device and in the page cache (tens of times more on this machine's disk, about 4
// times in tmpfs: docs/storage.md). About 6 s.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "models/disk_params_io.hpp"
#include "tests/support/workbench_cli.hpp"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

}  // namespace

TEST_CASE("disk calibrate measures four bandwidths that read back as disk parameters") {
  const fs::path dir = wb::test::temp_dir("disk", "fio");
  const fs::path file = dir / "scratch", out = dir / "disk.json";
  auto r = wb::test::run_workbench({"disk", "calibrate", "--file", file.string(), "--size", "64M",
                                    "--runtime", "1", "--out", out.string(), "--json"},
                                   120s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["out"] == out.string());
  const wb::DiskParamsFile f = wb::read_disk_params(out.string());
  const wb::DiskParams& p = f.params;
  INFO("seq read " << p.seq_read_bps << " seq write " << p.seq_write_bps << " rand read " << p.rand_read_bps
                   << " rand write " << p.rand_write_bps);
  CHECK(p.seq_read_bps > 0);
  CHECK(p.seq_write_bps > 0);
  CHECK(p.rand_read_bps > 0);
  CHECK(p.rand_write_bps > 0);
  CHECK(p.seq_read_bps >= p.rand_read_bps);
  CHECK(p.random_io_size == 4096);
  REQUIRE(f.provenance);
  CHECK(f.provenance->file == file.string());
  CHECK(f.provenance->file_size == 64u << 20);
  CHECK_THAT(f.provenance->fio_version, Catch::StartsWith("fio-"));
  REQUIRE(f.provenance->runs.size() == 4);
  for (const wb::FioRunFigures& run : f.provenance->runs) {
    INFO(run.name);
    // time_based: fio ran for --runtime, and a little longer when it waited for buffered writes.
    CHECK(run.runtime_s >= 0.99);
    CHECK(run.runtime_s < 3);
    CHECK(run.iops * static_cast<double>(run.block_size) == Approx(run.bw_bps).epsilon(0.01));
  }
  CHECK_FALSE(fs::exists(file));  // fio created it, workbench removed it
  fs::remove_all(dir);
}
