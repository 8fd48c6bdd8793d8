#pragma once
// The four disk parameters of [001 §III-C.7] (models/disk_model.hpp) as a JSON file, written by
// `workbench disk calibrate` and read by whoever prices a miss stream:
//   {"seq_read_bps": 8.3e8, "seq_write_bps": 9.1e8, "rand_read_bps": 2.3e7,
//    "rand_write_bps": 1.5e7, "random_io_size": 4096, "provenance": {...}}
// Bandwidths in bytes/s. random_io_size may be left out (0: the plain four-parameter model);
// provenance is optional and says how the numbers were measured.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/disk_model.hpp"

namespace wb {

// What one fio run measured (one of the four; name "seq_read", "seq_write", "rand_read" or
// "rand_write").
struct FioRunFigures {
  std::string name;
  std::string rw;                // fio's --rw: read, write, randread, randwrite
  std::uint64_t block_size = 0;  // bytes
  double bw_bps = 0;             // bytes/s, fio's bw_bytes
  double iops = 0;
  double runtime_s = 0;  // what fio ran for
  std::uint64_t io_bytes = 0;
};

// How a parameter file was measured.
struct DiskProvenance {
  std::string file;  // the device or file fio ran on
  std::uint64_t file_size = 0;
  bool direct = false;  // O_DIRECT (false: buffered, the page cache included)
  int iodepth = 1;
  std::string fio_version;  // "fio-3.33"
  std::string date;         // ISO 8601 UTC, from fio's timestamp of the first run
  std::vector<FioRunFigures> runs;
};

struct DiskParamsFile {
  DiskParams params;
  std::optional<DiskProvenance> provenance;
};

// Keys in the order above (ordered_json): the four bandwidths first, for a person reading the file.
nlohmann::ordered_json disk_params_to_json(const DiskParamsFile& file);

// Reads what disk_params_to_json wrote (unknown keys are ignored). Throws InputError starting
// "`source`: `key`:" for a missing or mistyped key or a bandwidth check_disk_params refuses.
DiskParamsFile disk_params_from_json(const nlohmann::json& j, const std::string& source);

// The file at `path` through disk_params_from_json; InputError naming `path` if it cannot be
// opened or is not JSON.
DiskParamsFile read_disk_params(const std::string& path);

}  // namespace wb
