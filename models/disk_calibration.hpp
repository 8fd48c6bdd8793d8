#pragma once
// Measuring the four disk parameters of [001 §III-C.7] with fio: the four runs' command lines, and
// their JSON output read back into DiskParams. Pure: `workbench disk calibrate`
// (controller/cmd_disk.cpp) runs the commands.
#include <cstdint>
#include <string>
#include <vector>

#include "models/disk_model.hpp"
#include "models/disk_params_io.hpp"

namespace wb {

enum class DiskRun { kSeqRead, kSeqWrite, kRandRead, kRandWrite };
inline constexpr DiskRun kDiskRuns[] = {DiskRun::kSeqRead, DiskRun::kSeqWrite, DiskRun::kRandRead,
                                        DiskRun::kRandWrite};

const char* disk_run_name(DiskRun run);   // "seq_read", ... (FioRunFigures::name)
const char* disk_run_label(DiskRun run);  // "sequential read", ...
const char* disk_run_rw(DiskRun run);     // fio's --rw: "read", "write", "randread", "randwrite"

struct DiskCalibrationPlan {
  std::string file;  // fio creates it at file_size when missing
  std::uint64_t file_size = 256ull << 20;
  double runtime_s = 2;  // per run
  std::uint64_t seq_block_size = 1ull << 20;
  std::uint64_t rand_block_size = 4096;  // also the model's random_io_size
  int iodepth = 1;
};

// Throws InputError naming the flag (--size, --seq-bs, --rand-bs, --runtime, --iodepth) of a value
// the runs cannot use.
void check_disk_calibration_plan(const DiskCalibrationPlan& plan);

std::uint64_t disk_run_block_size(const DiskCalibrationPlan& plan, DiskRun run);

// fio's argv for one run (program "fio", looked up in PATH): one job, time-based over runtime_s,
// --output-format=json. psync, or libaio when iodepth > 1 (a sync engine has depth 1).
std::vector<std::string> fio_calibration_argv(const DiskCalibrationPlan& plan, DiskRun run, bool direct);

// One run's result as fio printed it.
struct FioRunOutput {
  FioRunFigures figures;       // meaningless when error != 0
  std::string fio_version;     // "fio version"
  std::int64_t timestamp = 0;  // seconds since the epoch, when fio started
  int error = 0;               // the job's errno (22, EINVAL: O_DIRECT refused or misaligned)
};

// Reads fio's --output-format=json (after any "note:" lines fio prints first). Throws InputError
// naming the missing or mistyped key.
FioRunOutput parse_fio_run(const std::string& out, DiskRun run, std::uint64_t block_size);

// The four bandwidths from the four runs (any order, by name), random_io_size = rand_block_size.
// Throws Error naming a run that is missing or measured no bytes.
DiskParams disk_params_from_runs(const std::vector<FioRunFigures>& runs, std::uint64_t rand_block_size);

// "4096", "4k", "1M", "256MiB", "2g": K, M, G, T are powers of 1024 as in fio. Throws InputError
// (without a flag name; the caller adds it) for anything else, 0, or more than 2^50.
std::uint64_t parse_byte_size(const std::string& text);

// "1 MiB", "4 KiB", "1000 B": the largest unit that divides it.
std::string format_byte_size(std::uint64_t bytes);

// "2026-11-28T14:01:46Z".
std::string iso8601_utc(std::int64_t epoch_s);

}  // namespace wb
