// `workbench disk calibrate`: measures the four parameters of the disk model [001 §III-C.7;
// models/disk_model.hpp] with four short fio runs and writes them as JSON (models/disk_params_io.hpp).
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "controller/cli.hpp"
#include "controller/output_file.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "experiment/interrupt.hpp"
#include "harness/executor.hpp"
#include "harness/local_executor.hpp"
#include "models/disk_calibration.hpp"
#include "models/disk_params_io.hpp"

namespace wb {

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct DiskOptions {
  DiskCalibrationPlan plan;
  std::string direct = "auto";  // auto, yes, no
  std::string out = "disk.json";
};

// The file fio creates: removed when the command ends, however it ends (short of SIGKILL), unless
// it existed before (the user's own file or device, left as it is).
class ScratchFile {
 public:
  explicit ScratchFile(std::string path) : path_(std::move(path)) {
    std::error_code ec;
    existed_ = fs::exists(fs::symlink_status(path_, ec));
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  ~ScratchFile() {
    std::error_code ignored;
    if (!existed_) fs::remove(path_, ignored);
  }
  bool existed() const { return existed_; }

 private:
  std::string path_;
  bool existed_ = false;
};

// Runs fio to its end, stopping it (its whole process group) at once if a signal asks workbench to.
CommandResult run_interruptible(Executor& executor, const CommandSpec& spec) {
  std::unique_ptr<Process> p = executor.start(spec);
  for (;;) {
    if (auto r = p->wait(100ms)) return *r;
    if (interrupt_requested()) {
      p->stop(2s);
      throw Interrupted();
    }
  }
}

// A bound against a hung fio, not a measurement limit: the run plus laying out the file at 4 MiB/s.
std::chrono::milliseconds fio_deadline(const DiskCalibrationPlan& plan) {
  const double s = plan.runtime_s + 60 + static_cast<double>(plan.file_size) / (4 << 20);
  return std::chrono::milliseconds(static_cast<long long>(s * 1000));
}

// One fio run; nullopt when fio reports EINVAL under O_DIRECT (refused, or a misaligned block size).
std::optional<FioRunOutput> run_fio(Executor& executor, const DiskCalibrationPlan& plan, DiskRun run,
                                    bool direct) {
  const CommandResult r = run_interruptible(
      executor, CommandSpec{fio_calibration_argv(plan, run, direct), {}, {}, fio_deadline(plan)});
  if (r.exit_status == 127) throw Error("fio is not installed or not on PATH (Debian: apt-get install fio)");
  if (r.exit_status == 126) throw Error(fmt::format("cannot execute fio: {}", output_tail(r.err, 200)));
  if (r.timed_out)
    throw Error(fmt::format("fio's {} run did not end within {} s and was stopped", disk_run_label(run),
                            fio_deadline(plan).count() / 1000));
  std::optional<FioRunOutput> out;
  try {
    out = parse_fio_run(r.out, run, disk_run_block_size(plan, run));
  } catch (const InputError& e) {
    if (r.ok()) throw Error(fmt::format("fio's {} run: {}", disk_run_label(run), e.what()));
  }
  if (direct && out && out->error == EINVAL) return std::nullopt;  // fio reports Linux errno values
  if (!r.ok() || !out || out->error != 0)
    throw Error(fmt::format("fio's {} run failed (exit {}{}): {}", disk_run_label(run), r.exit_status,
                            r.exit_signal ? ", signal " + *r.exit_signal : "",
                            output_tail(r.err.empty() ? r.out : r.err, 300)));
  return out;
}

// The four runs, with O_DIRECT unless --direct no; --direct auto starts over buffered when fio
// reports O_DIRECT refused, so all four numbers describe the same path through the kernel.
DiskParamsFile calibrate(Executor& executor, const DiskOptions& o) {
  const DiskCalibrationPlan& plan = o.plan;
  const bool tty = isatty(STDERR_FILENO) == 1;
  bool direct = o.direct != "no";
  for (;;) {
    DiskProvenance prov{plan.file, plan.file_size, direct, plan.iodepth, "", "", {}};
    bool refused = false;
    for (DiskRun run : kDiskRuns) {
      if (tty)
        fmt::print(stderr, "fio: {}, {} blocks, {:g} s\n", disk_run_label(run),
                   format_byte_size(disk_run_block_size(plan, run)), plan.runtime_s);
      std::optional<FioRunOutput> out = run_fio(executor, plan, run, direct);
      if (!out) {
        refused = true;
        break;
      }
      if (prov.runs.empty()) {
        prov.fio_version = out->fio_version;
        prov.date = iso8601_utc(out->timestamp);
      }
      prov.runs.push_back(out->figures);
    }
    if (!refused) return {disk_params_from_runs(prov.runs, plan.rand_block_size), prov};
    const std::string why = fmt::format(
        "O_DIRECT refused on {} (fio: Invalid argument; the file system may not support it, or a block "
        "size is not a multiple of its sector size)",
        plan.file);
    if (o.direct == "yes") throw Error(why + "; try --direct auto or no");
    fmt::print(stderr, "workbench: {}: measuring buffered I/O instead, the page cache included\n", why);
    direct = false;
  }
}

void print_table(const DiskParamsFile& f, const std::string& out) {
  const DiskProvenance& p = *f.provenance;
  fmt::print("{} on {} ({}, {}, iodepth {})\n", p.fio_version, p.file, format_byte_size(p.file_size),
             p.direct ? "O_DIRECT" : "buffered", p.iodepth);
  fmt::print("  {:<17} {:>9} {:>11} {:>11} {:>7}\n", "run", "block", "MB/s", "IOPS", "s");
  for (const FioRunFigures& r : p.runs) {
    std::string label = r.name;
    for (DiskRun run : kDiskRuns)
      if (r.name == disk_run_name(run)) label = disk_run_label(run);
    fmt::print("  {:<17} {:>9} {:>11.2f} {:>11.0f} {:>7.2f}\n", label, format_byte_size(r.block_size),
               r.bw_bps / 1e6, r.iops, r.runtime_s);
  }
  fmt::print("disk parameters (bytes/s, random_io_size {}) written to {}\n", f.params.random_io_size, out);
}

int run_calibrate(const CommonOptions& common, const DiskOptions& o) {
  check_disk_calibration_plan(o.plan);
  check_output_path("--file", o.plan.file);
  check_output_path("--out", o.out);
  std::error_code ec1, ec2;
  if (fs::weakly_canonical(o.plan.file, ec1) == fs::weakly_canonical(o.out, ec2) && !ec1 && !ec2)
    throw InputError(fmt::format("--out {}: the same file as --file", o.out));
  auto executor = make_local_executor();
  DiskParamsFile result;
  {
    const ScratchFile scratch(o.plan.file);
    result = calibrate(*executor, o);
  }
  const nlohmann::ordered_json j = disk_params_to_json(result);
  write_atomically(o.out, j.dump(2) + "\n");
  if (common.json)
    std::cout << nlohmann::ordered_json{{"out", o.out}, {"disk", j}}.dump() << "\n";
  else
    print_table(result, o.out);
  return to_int(ExitStatus::kOk);
}

// A size flag: "256M" becomes its bytes before CLI11 stores it (parse_byte_size).
CLI::Validator byte_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          text = std::to_string(parse_byte_size(text));
          return {};
        } catch (const InputError& e) {
          return e.what();
        }
      },
      "SIZE");
}

constexpr const char* kCalibrateHelp =
    "Measure the four parameters of the disk model (seed 001 §III-C.7) with four short fio runs on "
    "--file: sequential read and write with --seq-bs blocks, random read and write with --rand-bs "
    "blocks, each for --runtime seconds. The four bandwidths (bytes/s) and random_io_size = --rand-bs "
    "go to --out as JSON.\n\n"
    "How they are used: the disk model prices every I/O that misses the buffer cache. A sequential "
    "I/O of s bytes takes s / sequential bandwidth; a random one takes a positioning time plus "
    "s / sequential bandwidth, the positioning time chosen so that a random I/O of random_io_size "
    "bytes takes random_io_size / random bandwidth. Summed over a request's I/Os this is the disk's "
    "service demand per request (D_DISK, 001 §III-C.2): the demand of the disk center in the "
    "queueing model whatif solves: name the file as `disk` in [model.storage] and use {disk_ms} "
    "as the disk center's service_ms (docs/storage.md).\n\n"
    "fio creates --file at --size when it does not exist, and workbench removes it afterwards; an "
    "existing file or device is kept, but the write runs overwrite its first --size bytes. With "
    "--direct auto (the default) fio bypasses the page cache (O_DIRECT) and, where the file system "
    "refuses that, workbench says so and measures buffered I/O, which includes the page cache.\n\n"
    "Example:\n"
    "  workbench disk calibrate --file /var/tmp/wb-disk.scratch --size 1G --out disk.json";

}  // namespace

Command disk_command() {
  return Command{
      "disk", "The disk model's parameters: `disk calibrate` measures them with fio.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        app.require_subcommand(1);
        auto o = std::make_shared<DiskOptions>();
        CLI::App* cal = app.add_subcommand("calibrate", kCalibrateHelp);
        cal->add_option("--file", o->plan.file, "the file or block device fio measures")->required();
        cal->add_option("--size", o->plan.file_size,
                        "bytes of --file the runs cover (K, M, G, T: powers of 1024)")
            ->transform(byte_size())
            ->default_str("256M");
        cal->add_option("--runtime", o->plan.runtime_s, "seconds each of the four runs lasts")
            ->check(cli::finite_number(0.1, 86400))
            ->default_str("2");
        cal->add_option("--seq-bs", o->plan.seq_block_size, "block size of the sequential runs")
            ->transform(byte_size())
            ->default_str("1M");
        cal->add_option("--rand-bs", o->plan.rand_block_size,
                        "block size of the random runs; the model's random_io_size")
            ->transform(byte_size())
            ->default_str("4k");
        cal->add_option("--iodepth", o->plan.iodepth, "I/Os in flight (above 1: the libaio engine)")
            ->transform(cli::whole_number(1, 4096))
            ->default_str("1");
        cal->add_option("--direct", o->direct,
                        "bypass the page cache: yes, no, or auto (yes where the file system allows it)")
            ->check(CLI::IsMember({"auto", "yes", "no"}))
            ->default_str("auto");
        cal->add_option("--out,-o", o->out, "where to write the parameters (JSON)")->default_str("disk.json");
        cal->add_flag("--json", common.json, "machine-readable output: the path written and its contents");
        return [&common, o] { return run_calibrate(common, *o); };
      }};
}

}  // namespace wb
