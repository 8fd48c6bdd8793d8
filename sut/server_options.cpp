#include "sut/server_options.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace wb::sut {

double ServerOptions::disk_factor(int index) const noexcept {
  double f = 1.0;
  for (const SlowDisk& s : slow_disks)
    if (s.index == index) f *= s.factor;
  return f;
}

std::string_view to_string(CpuMode m) noexcept { return m == CpuMode::kSpin ? "spin" : "sleep"; }

void add_server_options(CLI::App& app, ServerOptions& out, RawOptions& raw) {
  app.add_option("--port", out.port, "TCP port to listen on; 0 picks a free port")->required();
  app.add_option("--bind", out.bind, "address to listen on (default 0.0.0.0)");
  app.add_option("--threads", out.threads, "worker threads N (>= 1)")->required();
  app.add_option("--disks", out.disks, "emulated disks D (>= 1)")->required();
  app.add_option("--io-threads", out.io_threads, "Asio threads for connections (default 1)");
  app.add_option("--cpu-ms", out.cpu.mean_ms,
                 "mean CPU service per read/write/metadata request, ms (default 1)");
  app.add_option("--cpu-dist", raw.cpu_dist,
                 "CPU service distribution: exponential|lognormal|deterministic (default exponential)");
  app.add_option("--cpu-cv", out.cpu.cv, "coefficient of variation of a lognormal CPU time (default 1)");
  app.add_option("--cpu-mode", raw.cpu_mode,
                 "spin: burn CPU (needs a core); sleep: hold the thread without a core (default spin)");
  app.add_option("--disk-ms", out.disk.mean_ms, "mean random-access disk service time, ms (default 10)");
  app.add_option("--disk-dist", raw.disk_dist,
                 "disk service distribution: exponential|lognormal|deterministic (default exponential)");
  app.add_option("--disk-cv", out.disk.cv, "coefficient of variation of a lognormal disk time (default 1)");
  app.add_option("--seq-factor", out.seq_factor,
                 "sequential ops (flag bit 0) have mean disk-ms * this (default 0.3)");
  app.add_option("--cache-mb", out.cache_mb,
                 "a buffer cache of this many MiB: a read whose blocks are all resident skips the disk; "
                 "writes allocate and go to disk (default: no cache)");
  app.add_option("--cache-block-kb", out.cache_block_kb, "the cache's block size, KiB (default 4)");
  app.add_option("--cache-policy", raw.cache_policy, "the cache's replacement: lru | clock (default lru)");
  app.add_option("--seed", raw.seed, "seed of the service-time streams (default: random)");
  app.add_option("--slow-disk", raw.slow_disks,
                 "fault: I:F makes disk I (0-based) F times slower; repeatable");
  app.add_option("--serialize-above", out.serialize_above,
                 "fault: a request that starts while more than N threads are busy runs under one "
                 "global lock");
  app.add_option("--create-cost-ms", out.create_cost_ms,
                 "fault: every write creates a file and costs this many extra CPU ms per 1000 files "
                 "created before it");
  app.add_option("--stall-every", out.stall_every_s, "fault: every S seconds all workers stop serving ...");
  app.add_option("--stall-for", out.stall_for_s, "... for S seconds (needs --stall-every)");
  app.footer(
      "Prints 'ready <port>' on stdout once it accepts connections. Protocol: core/rpc_protocol.hpp\n"
      "(ops noop, read, write, metadata, stats); the stats op returns per-stage times as JSON\n"
      "(sut/stage_stats.hpp; flag bit 1 resets them). Exit status: 0 after SIGTERM/SIGINT,\n"
      "1 if it cannot listen, 2 for bad arguments.");
}

namespace {

double parse_double(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  double v = 0.0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !std::isfinite(v))
    throw InputError(what + ": '" + text + "' is not a number");
  return v;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw InputError(message);
}

}  // namespace

void finish_options(ServerOptions& out, const RawOptions& raw) {
  out.cpu.dist = parse_distribution(raw.cpu_dist, "--cpu-dist");
  out.disk.dist = parse_distribution(raw.disk_dist, "--disk-dist");
  if (raw.cpu_mode == "spin") {
    out.cpu_mode = CpuMode::kSpin;
  } else if (raw.cpu_mode == "sleep") {
    out.cpu_mode = CpuMode::kSleep;
  } else {
    throw InputError("--cpu-mode: '" + raw.cpu_mode + "' is neither spin nor sleep");
  }
  if (!raw.seed.empty()) {
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
      v = std::stoull(raw.seed, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    require(used == raw.seed.size() && raw.seed[0] != '-',
            "--seed: '" + raw.seed + "' is not an unsigned integer");
    out.seed = v;
  }
  require(out.port >= 0 && out.port <= 65535, "--port: must be in 0..65535");
  require(out.threads >= 1 && out.threads <= 4096, "--threads: must be in 1..4096");
  require(out.disks >= 1 && out.disks <= 4096, "--disks: must be in 1..4096");
  require(out.io_threads >= 1 && out.io_threads <= 64, "--io-threads: must be in 1..64");
  require(std::isfinite(out.cpu.mean_ms) && out.cpu.mean_ms >= 0, "--cpu-ms: must be >= 0");
  require(std::isfinite(out.disk.mean_ms) && out.disk.mean_ms >= 0, "--disk-ms: must be >= 0");
  require(std::isfinite(out.cpu.cv) && out.cpu.cv > 0, "--cpu-cv: must be > 0");
  require(std::isfinite(out.disk.cv) && out.disk.cv > 0, "--disk-cv: must be > 0");
  require(std::isfinite(out.seq_factor) && out.seq_factor > 0, "--seq-factor: must be > 0");
  require(std::isfinite(out.cache_mb) && out.cache_mb <= 1 << 20, "--cache-mb: must be at most 1048576");
  require(
      std::isfinite(out.cache_block_kb) && out.cache_block_kb * 1024 >= 1 && out.cache_block_kb <= 1 << 20,
      "--cache-block-kb: must be from 1/1024 to 1048576");
  require(raw.cache_policy == "lru" || raw.cache_policy == "clock",
          "--cache-policy: '" + raw.cache_policy + "' is neither lru nor clock");
  out.cache_policy = raw.cache_policy;
  for (const std::string& s : raw.slow_disks) {
    const auto colon = s.find(':');
    require(colon != std::string::npos, "--slow-disk: '" + s + "' is not I:F");
    const double index = parse_double(s.substr(0, colon), "--slow-disk index");
    const double factor = parse_double(s.substr(colon + 1), "--slow-disk factor");
    require(index >= 0 && index < out.disks && index == std::floor(index),
            "--slow-disk: disk index in '" + s + "' must be an integer in 0..disks-1");
    require(factor > 0, "--slow-disk: factor in '" + s + "' must be > 0");
    out.slow_disks.push_back(SlowDisk{static_cast<int>(index), factor});
  }
  require(out.serialize_above >= 0, "--serialize-above: must be >= 1 (or 0 for off)");
  require(std::isfinite(out.create_cost_ms) && out.create_cost_ms >= 0, "--create-cost-ms: must be >= 0");
  require(std::isfinite(out.stall_every_s) && out.stall_every_s >= 0, "--stall-every: must be >= 0");
  require(std::isfinite(out.stall_for_s) && out.stall_for_s >= 0, "--stall-for: must be >= 0");
  require((out.stall_every_s > 0) == (out.stall_for_s > 0),
          "--stall-every and --stall-for: give both or neither");
  require(out.stall_every_s == 0 || out.stall_for_s < out.stall_every_s,
          "--stall-for: must be shorter than --stall-every");
}

}  // namespace wb::sut
