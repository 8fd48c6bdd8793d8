#include "models/disk_calibration.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <ctime>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "models/fio_json.hpp"

namespace wb {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxSize = 1ull << 50;
constexpr std::uint64_t kMaxBlockSize = 1ull << 30;

bool is_read(DiskRun run) { return run == DiskRun::kSeqRead || run == DiskRun::kRandRead; }

// fio reads ':' in a file name as the separator of several files; "\:" is a literal colon.
std::string fio_file_name(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ':') out += '\\';
    out += c;
  }
  return out;
}

double number_at(const json& j, const char* key, const std::string& where) {
  const json& v = fio_member(j, key, where);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    throw InputError(fmt::format("fio output {}.{}: {} is not a number >= 0", where, key, v.dump()));
  return v.get<double>();
}

}  // namespace

const char* disk_run_name(DiskRun run) {
  switch (run) {
    case DiskRun::kSeqRead: return "seq_read";
    case DiskRun::kSeqWrite: return "seq_write";
    case DiskRun::kRandRead: return "rand_read";
    case DiskRun::kRandWrite: return "rand_write";
  }
  return "";
}

const char* disk_run_label(DiskRun run) {
  switch (run) {
    case DiskRun::kSeqRead: return "sequential read";
    case DiskRun::kSeqWrite: return "sequential write";
    case DiskRun::kRandRead: return "random read";
    case DiskRun::kRandWrite: return "random write";
  }
  return "";
}

const char* disk_run_rw(DiskRun run) {
  switch (run) {
    case DiskRun::kSeqRead: return "read";
    case DiskRun::kSeqWrite: return "write";
    case DiskRun::kRandRead: return "randread";
    case DiskRun::kRandWrite: return "randwrite";
  }
  return "";
}

void check_disk_calibration_plan(const DiskCalibrationPlan& plan) {
  if (plan.file.empty()) throw InputError("--file: give the file or device fio measures");
  if (plan.file_size == 0 || plan.file_size > kMaxSize)
    throw InputError(fmt::format("--size {}: not from 1 byte to 1 PiB", plan.file_size));
  for (auto [flag, bs] :
       {std::pair{"--seq-bs", plan.seq_block_size}, std::pair{"--rand-bs", plan.rand_block_size}}) {
    if (bs == 0 || bs > kMaxBlockSize)
      throw InputError(fmt::format("{} {}: not from 1 byte to 1 GiB", flag, bs));
    if (bs > plan.file_size)
      throw InputError(fmt::format("{} {}: larger than --size {}", flag, format_byte_size(bs),
                                   format_byte_size(plan.file_size)));
  }
  if (!std::isfinite(plan.runtime_s) || plan.runtime_s < 0.1 || plan.runtime_s > 86400)
    throw InputError(fmt::format("--runtime {}: not from 0.1 to 86400 seconds", plan.runtime_s));
  if (plan.iodepth < 1 || plan.iodepth > 4096)
    throw InputError(fmt::format("--iodepth {}: not from 1 to 4096", plan.iodepth));
}

std::uint64_t disk_run_block_size(const DiskCalibrationPlan& plan, DiskRun run) {
  return run == DiskRun::kSeqRead || run == DiskRun::kSeqWrite ? plan.seq_block_size : plan.rand_block_size;
}

std::vector<std::string> fio_calibration_argv(const DiskCalibrationPlan& plan, DiskRun run, bool direct) {
  return {"fio",
          fmt::format("--name=wb_{}", disk_run_name(run)),
          "--filename=" + fio_file_name(plan.file),
          fmt::format("--size={}", plan.file_size),
          fmt::format("--rw={}", disk_run_rw(run)),
          fmt::format("--bs={}", disk_run_block_size(plan, run)),
          fmt::format("--direct={}", direct ? 1 : 0),
          plan.iodepth > 1 ? "--ioengine=libaio" : "--ioengine=psync",
          fmt::format("--iodepth={}", plan.iodepth),
          "--time_based",
          fmt::format("--runtime={}us", std::llround(plan.runtime_s * 1e6)),
          "--output-format=json"};
}

FioRunOutput parse_fio_run(const std::string& out, DiskRun run, std::uint64_t block_size) {
  const json j = fio_json_document(out);
  FioRunOutput r;
  const json& version = fio_member(j, "fio version", "");
  if (!version.is_string()) throw InputError("fio output .fio version: not a string");
  r.fio_version = version.get<std::string>();
  r.timestamp = static_cast<std::int64_t>(number_at(j, "timestamp", ""));
  const json& jobs = fio_member(j, "jobs", "");
  if (!jobs.is_array() || jobs.size() != 1) throw InputError("fio output .jobs: not a list of one job");
  const json& job = jobs[0];
  r.error = static_cast<int>(number_at(job, "error", ".jobs[0]"));
  const char* dir = is_read(run) ? "read" : "write";
  const std::string where = fmt::format(".jobs[0].{}", dir);
  const json& d = fio_member(job, dir, ".jobs[0]");
  FioRunFigures& f = r.figures;
  f.name = disk_run_name(run);
  f.rw = disk_run_rw(run);
  f.block_size = block_size;
  f.bw_bps = number_at(d, "bw_bytes", where);
  f.iops = number_at(d, "iops", where);
  f.runtime_s = number_at(d, "runtime", where) / 1e3;  // fio's runtime is in ms
  f.io_bytes = static_cast<std::uint64_t>(number_at(d, "io_bytes", where));
  return r;
}

DiskParams disk_params_from_runs(const std::vector<FioRunFigures>& runs, std::uint64_t rand_block_size) {
  auto bandwidth = [&](DiskRun run) {
    auto it = std::find_if(runs.begin(), runs.end(),
                           [&](const FioRunFigures& f) { return f.name == disk_run_name(run); });
    if (it == runs.end()) throw Error(fmt::format("no {} run", disk_run_label(run)));
    if (!(it->bw_bps > 0) || !std::isfinite(it->bw_bps))
      throw Error(fmt::format("fio's {} run moved no bytes ({} bytes/s over {} s)", disk_run_label(run),
                              it->bw_bps, it->runtime_s));
    return it->bw_bps;
  };
  DiskParams p;
  p.seq_read_bps = bandwidth(DiskRun::kSeqRead);
  p.seq_write_bps = bandwidth(DiskRun::kSeqWrite);
  p.rand_read_bps = bandwidth(DiskRun::kRandRead);
  p.rand_write_bps = bandwidth(DiskRun::kRandWrite);
  p.random_io_size = rand_block_size;
  return p;
}

std::uint64_t parse_byte_size(const std::string& text) {
  std::uint64_t n = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec == std::errc::invalid_argument)
    throw InputError(fmt::format("'{}' is not a size (bytes, or with K, M, G or T)", text));
  std::string unit(ptr, end);
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  int shift = -1;
  for (auto [name, s] : {std::pair{"", 0}, std::pair{"b", 0}, std::pair{"k", 10}, std::pair{"m", 20},
                         std::pair{"g", 30}, std::pair{"t", 40}}) {
    const std::string u = name;
    if (unit == u || (s > 0 && (unit == u + "b" || unit == u + "ib"))) shift = s;
  }
  if (shift < 0) throw InputError(fmt::format("'{}' is not a size (bytes, or with K, M, G or T)", text));
  if (ec == std::errc::result_out_of_range || n == 0 || n > (kMaxSize >> shift))
    throw InputError(fmt::format("'{}' is not a size from 1 byte to 1 PiB", text));
  return n << shift;
}

std::string format_byte_size(std::uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (u < 5 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{} {}", bytes, kUnits[u]);
}

std::string iso8601_utc(std::int64_t epoch_s) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(static_cast<std::time_t>(epoch_s)));
}

}  // namespace wb
