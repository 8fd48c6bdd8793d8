// The disk parameter file (models/disk_params_io.hpp): what disk_params_to_json writes reads back
// equal, and each bad key is refused naming the file and the key.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "models/disk_params_io.hpp"

namespace {

using nlohmann::json;

wb::DiskParamsFile measured() {
  wb::DiskParamsFile f;
  f.params = {8.3e8, 9.1e8, 2.27e7, 1.55e7, 4096};
  wb::DiskProvenance p;
  p.file = "/var/tmp/wb-disk.scratch";
  p.file_size = 256ull << 20;
  p.direct = true;
  p.iodepth = 4;
  p.fio_version = "fio-3.33";
  p.date = "2026-11-28T14:01:46Z";
  p.runs = {{"seq_read", "read", 1048576, 8.3e8, 794.2, 2.001, 1660000000},
            {"rand_write", "randwrite", 4096, 1.55e7, 3775.2, 2.0, 31000000}};
  f.provenance = p;
  return f;
}

// `seq_read_bps` etc. of a good file, with `key` set to `value` (or removed if value is null).
json with(const std::string& key, const json& value) {
  json j = wb::disk_params_to_json(measured());
  json* at = &j;
  std::string k = key;
  if (auto dot = key.find('.'); dot != std::string::npos) {
    at = &j[key.substr(0, dot)];
    k = key.substr(dot + 1);
  }
  if (value.is_null())
    at->erase(k);
  else
    (*at)[k] = value;
  return j;
}

std::string refusal(const json& j) {
  try {
    wb::disk_params_from_json(j, "disk.json");
  } catch (const wb::InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("disk parameters with provenance read back equal after a trip through JSON text") {
  const wb::DiskParamsFile f = measured();
  const json text = json::parse(wb::disk_params_to_json(f).dump(2));
  const wb::DiskParamsFile g = wb::disk_params_from_json(text, "disk.json");
  CHECK(g.params.seq_read_bps == f.params.seq_read_bps);
  CHECK(g.params.seq_write_bps == f.params.seq_write_bps);
  CHECK(g.params.rand_read_bps == f.params.rand_read_bps);
  CHECK(g.params.rand_write_bps == f.params.rand_write_bps);
  CHECK(g.params.random_io_size == 4096);
  REQUIRE(g.provenance);
  CHECK(g.provenance->file == f.provenance->file);
  CHECK(g.provenance->file_size == f.provenance->file_size);
  CHECK(g.provenance->direct);
  CHECK(g.provenance->iodepth == 4);
  CHECK(g.provenance->fio_version == "fio-3.33");
  CHECK(g.provenance->date == "2026-11-28T14:01:46Z");
  REQUIRE(g.provenance->runs.size() == 2);
  const wb::FioRunFigures& r = g.provenance->runs[1];
  CHECK(r.name == "rand_write");
  CHECK(r.rw == "randwrite");
  CHECK(r.block_size == 4096);
  CHECK(r.bw_bps == 1.55e7);
  CHECK(r.iops == 3775.2);
  CHECK(r.runtime_s == 2.0);
  CHECK(r.io_bytes == 31000000);
  // The model takes what the reader accepts.
  CHECK(wb::positioning_time(g.params, wb::IoKind::kRead) > 0);
}

TEST_CASE("a hand-written file of the four bandwidths alone is the plain four-parameter model") {
  const json j = {
      {"seq_read_bps", 2e8}, {"seq_write_bps", 1.5e8}, {"rand_read_bps", 1e6}, {"rand_write_bps", 8e5}};
  const wb::DiskParamsFile f = wb::disk_params_from_json(j, "hand.json");
  CHECK(f.params.random_io_size == 0);
  CHECK_FALSE(f.provenance);
  CHECK(wb::disk_params_to_json(f).count("provenance") == 0);
}

TEST_CASE("each bad key of a disk parameter file is refused naming the file and the key") {
  CHECK(refusal(with("seq_write_bps", nullptr)) == "disk.json: seq_write_bps: missing");
  CHECK(refusal(with("seq_read_bps", "fast")) == "disk.json: seq_read_bps: \"fast\" is not a number");
  CHECK(refusal(with("rand_read_bps", 0)) == "disk.json: rand_read_bps: 0 is not a finite number > 0");
  CHECK(refusal(with("rand_write_bps", -3.5)) ==
        "disk.json: rand_write_bps: -3.5 is not a finite number > 0");
  CHECK(refusal(with("rand_write_bps", std::numeric_limits<double>::infinity())) ==
        "disk.json: rand_write_bps: inf is not a finite number > 0");
  CHECK(refusal(with("random_io_size", -4096)) ==
        "disk.json: random_io_size: -4096 is not a whole number >= 0");
  CHECK(refusal(with("random_io_size", 4096.5)) ==
        "disk.json: random_io_size: 4096.5 is not a whole number >= 0");
  CHECK(refusal(with("provenance.direct", "yes")) ==
        "disk.json: provenance.direct: \"yes\" is not true or false");
  CHECK(refusal(with("provenance.iodepth", 0)) == "disk.json: provenance.iodepth: 0 is not from 1 to 65536");
  CHECK(refusal(with("provenance.runs", json::object())) == "disk.json: provenance.runs: not an array");
  CHECK(refusal(with("provenance", 7)) == "disk.json: provenance: not an object");
  CHECK(refusal(json::array()) == "disk.json: top level: not an object");
  json j = wb::disk_params_to_json(measured());
  j["provenance"]["runs"][1]["iops"] = "many";
  CHECK(refusal(j) == "disk.json: provenance.runs[1].iops: \"many\" is not a number");
  j["provenance"]["runs"][1] = 3;
  CHECK(refusal(j) == "disk.json: provenance.runs[1]: not an object");
}

TEST_CASE("read_disk_params names the file it cannot open, cannot parse, or refuses") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("wb_disk_io_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string missing = (dir / "none.json").string();
  CHECK_THROWS_MATCHES(wb::read_disk_params(missing), wb::InputError,
                       Catch::Message(missing + ": cannot open the disk parameters"));
  const std::string garbage = (dir / "garbage.json").string();
  std::ofstream(garbage) << "{\"seq_read_bps\": ";
  CHECK_THROWS_MATCHES(wb::read_disk_params(garbage), wb::InputError, Catch::Message(garbage + ": not JSON"));
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << with("seq_read_bps", nullptr).dump();
  CHECK_THROWS_MATCHES(wb::read_disk_params(bad), wb::InputError,
                       Catch::Message(bad + ": seq_read_bps: missing"));
  const std::string good = (dir / "good.json").string();
  std::ofstream(good) << wb::disk_params_to_json(measured()).dump(2);
  CHECK(wb::read_disk_params(good).params.seq_write_bps == 9.1e8);
  fs::remove_all(dir);
}
