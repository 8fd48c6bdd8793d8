#pragma once
// Everything refserver can be told on its command line, as one value type, plus its CLI11 wiring (flags:
// refserver_main.cpp and `refserver --help`; fault semantics: request_service.hpp). finish_options()
// throws wb::InputError naming the flag for values out of range or missing companions (exit status 2).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sut/service_time.hpp"

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's namespace
class App;
}

namespace wb::sut {

enum class CpuMode { kSpin, kSleep };

struct SlowDisk {
  int index = 0;        // which disk, 0-based
  double factor = 1.0;  // its service times are multiplied by this
};

struct ServerOptions {
  std::string bind = "0.0.0.0";
  int port = -1;    // 0 = let the kernel pick; required
  int threads = 0;  // worker threads N, required, >= 1
  int disks = 0;    // emulated disks D, required, >= 1
  int io_threads = 1;

  ServiceTime cpu{Distribution::kExponential, 1.0, 1.0};
  ServiceTime disk{Distribution::kExponential, 10.0, 1.0};  // random access
  double seq_factor = 0.3;  // sequential disk ops have mean disk.mean_ms * seq_factor
  CpuMode cpu_mode = CpuMode::kSpin;
  std::optional<std::uint64_t> seed;  // none: drawn from std::random_device at start

  // Buffer cache (sut/block_cache.hpp); off while cache_mb < 0 (every read goes to disk).
  double cache_mb = -1;
  double cache_block_kb = 4;
  std::string cache_policy = "lru";  // lru | clock

  // Fault flags (all off by default).
  std::vector<SlowDisk> slow_disks;
  int serialize_above = 0;      // 0 = off; else a global lock when more than this many are busy
  double create_cost_ms = 0.0;  // extra CPU ms per 1000 files created so far, per write
  double stall_every_s = 0.0;   // 0 = off
  double stall_for_s = 0.0;

  // Multiplier of disk `index`'s service time (1 unless a --slow-disk names it).
  double disk_factor(int index) const noexcept;
};

// Raw strings of the flags that need parsing after CLI11 has run.
struct RawOptions {
  std::string cpu_dist = "exponential";
  std::string disk_dist = "exponential";
  std::string cpu_mode = "spin";
  std::string cache_policy = "lru";
  std::vector<std::string> slow_disks;  // "I:F"
  std::string seed;
};

// Declares every flag on `app`, writing into `out` and `raw`.
void add_server_options(CLI::App& app, ServerOptions& out, RawOptions& raw);

// Parses `raw` into `out` and checks ranges and combinations; throws wb::InputError.
void finish_options(ServerOptions& out, const RawOptions& raw);

std::string_view to_string(CpuMode m) noexcept;

}  // namespace wb::sut
