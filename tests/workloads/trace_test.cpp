// wbload --trace against the real refserver: the CSV reads back through wb::read_io_trace (the
// storage what-if modules' reader) with one line per completed operation, the mix's offsets and
// sizes, and start times inside the measurement window.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "child.hpp"
#include "models/io_trace.hpp"
#include "wbload_run.hpp"

using wbtest::Child;
using wbtest::kWbload;
using wbtest::run_wbload;

namespace {

const std::string kRefserver = std::string(WB_BINARY_DIR) + "/sut/refserver";

// A path in the temporary directory, removed when the test ends.
struct TempFile {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("wbload_trace_" + std::to_string(getpid()) + ".csv");
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

std::string write_mix(const std::filesystem::path& at) {
  std::ofstream(at) << "protocol = \"rpc\"\n[keys]\ncount = 20\nfile_bytes = 65536\nalign = 4096\n"
                       "[[op]]\nkind = \"read\"\nweight = 2\nsize = 4096\n"
                       "[[op]]\nkind = \"write\"\nsize = 8192\nsequential = 1.0\n"
                       "[[op]]\nkind = \"metadata\"\n";
  return at.string();
}

}  // namespace

TEST_CASE("wbload --trace writes every completed operation in the io_trace format", "[trace]") {
  Child server({kRefserver, "--port", "0", "--bind", "127.0.0.1", "--threads", "2", "--disks", "2",
                "--cpu-ms", "0.1", "--disk-ms", "0.5", "--cpu-mode", "sleep", "--seed", "7"},
               true);
  std::string line = server.wait_line("ready ", 20);
  REQUIRE(!line.empty());
  TempFile trace, mix;
  mix.path.replace_extension(".toml");
  auto r = run_wbload({"--protocol",    "rpc",
                       "--target",      "127.0.0.1:" + line.substr(6),
                       "--rate",        "300",
                       "--duration",    "1.5",
                       "--warmup",      "0.3",
                       "--threads",     "2",
                       "--connections", "4",
                       "--arrivals",    "poisson",
                       "--mix",         write_mix(mix.path),
                       "--trace",       trace.path.string()});
  REQUIRE(r.completed > 300);
  REQUIRE(r.trace_path == trace.path.string());
  REQUIRE(r.trace_ops == r.completed);

  std::vector<wb::IoOp> ops = wb::read_io_trace_file(trace.path.string());
  REQUIRE(ops.size() == r.completed);
  std::map<wb::IoKind, std::size_t> kinds;
  double last = 0;
  for (const auto& op : ops) {
    ++kinds[op.kind];
    REQUIRE(std::stoull(op.file) < 20);
    REQUIRE(op.start_s >= last);  // merged over both threads, in start order
    REQUIRE(op.start_s < 1.5);
    REQUIRE(op.duration_s > 0);
    REQUIRE(op.duration_s < 5);  // --timeout
    last = op.start_s;
    switch (op.kind) {
      case wb::IoKind::kRead:
        REQUIRE(op.size == 4096);
        REQUIRE(op.offset % 4096 == 0);
        REQUIRE(op.offset + op.size <= 65536);
        break;
      case wb::IoKind::kWrite:
        REQUIRE(op.size == 8192);
        REQUIRE(op.offset == 0);  // sequential
        break;
      case wb::IoKind::kMeta:
        REQUIRE(op.size == 0);
        REQUIRE(op.offset == 0);
        break;
    }
  }
  REQUIRE(last > 1.0);  // the trace covers the window, not the warm-up
  REQUIRE(kinds[wb::IoKind::kRead] > kinds[wb::IoKind::kWrite]);
  REQUIRE(kinds[wb::IoKind::kWrite] > 0);
  REQUIRE(kinds[wb::IoKind::kMeta] > 0);
}

TEST_CASE("wbload --trace to a path that cannot be written exits 2 before the run", "[trace]") {
  auto r = wbtest::run_command({kWbload, "--protocol", "rpc", "--target", "127.0.0.1:1", "--rate", "10",
                                "--duration", "1", "--trace", "/nonexistent-dir/t.csv"});
  REQUIRE(r.status == 2);
  REQUIRE_THAT(r.err, Catch::Contains("--trace /nonexistent-dir/t.csv"));
}
