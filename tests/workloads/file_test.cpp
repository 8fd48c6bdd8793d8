// wbload --protocol file on a temporary directory: the files are created with the mix's size and
// reused by the next run, a short run completes with the mix's shares in its trace, and a bad
// directory is one line and exit status 2.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "models/io_trace.hpp"
#include "wbload_run.hpp"
#include "workloads/file_set.hpp"

using wbtest::kWbload;
using wbtest::run_wbload;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the temporary directory, removed with everything in it at the end.
struct TempDir {
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / (name + "_" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path path;
};

const std::string kMix =
    "protocol = \"file\"\n[keys]\ncount = 8\nfile_bytes = 131072\nalign = 4096\n"
    "[[op]]\nkind = \"read\"\nweight = 6\nsize = 4096\n"
    "[[op]]\nkind = \"write\"\nweight = 3\nsize = 8192\n"
    "[[op]]\nkind = \"metadata\"\nweight = 1\n";

std::string write_file(const fs::path& at, const std::string& text) {
  std::ofstream(at) << text;
  return at.string();
}

std::int64_t mtime_ns(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}

}  // namespace

TEST_CASE("FileSet creates the files at their size and reuses them", "[file]") {
  TempDir dir("wbload_fileset");
  {
    wb::FileSet files(dir.path.string(), 5, 10000);
    REQUIRE(files.created() == 5);
    for (std::uint64_t k = 0; k < 5; ++k) {
      REQUIRE(fs::file_size(files.path(k)) == 10000);
      REQUIRE(files.fd(k) >= 0);
    }
  }
  fs::resize_file(dir.path / "wbload-2", 10);  // the wrong size: written again
  wb::FileSet again(dir.path.string(), 6, 10000);
  REQUIRE(again.created() == 2);  // wbload-2 and the new wbload-5
  REQUIRE(fs::file_size(dir.path / "wbload-2") == 10000);
  REQUIRE_THROWS_AS(wb::FileSet((dir.path / "missing").string(), 1, 10), wb::InputError);
  REQUIRE_THROWS_AS(wb::FileSet((dir.path / "wbload-0").string(), 1, 10), wb::InputError);
}

TEST_CASE("wbload --protocol file runs the mix open-loop on real files", "[file]") {
  TempDir dir("wbload_file");
  TempDir work("wbload_file_work");
  std::string mix = write_file(work.path / "mix.toml", kMix);
  std::string trace = (work.path / "ops.csv").string();
  auto r = run_wbload({"--protocol", "file", "--target", dir.path.string(), "--rate", "1000", "--duration",
                       "1", "--warmup", "0.2", "--connections", "4", "--mix", mix, "--trace", trace});
  CHECK(r.sent == 1000);  // constant arrivals: rate x duration in the window
  CHECK(r.completed == r.sent);
  CHECK(r.error_total() == 0);
  CHECK(r.timeouts == 0);
  CHECK(r.achieved_rate == Approx(1000).epsilon(0.05));
  for (int k = 0; k < 8; ++k) REQUIRE(fs::file_size(dir.path / ("wbload-" + std::to_string(k))) == 131072);
  REQUIRE(!fs::exists(dir.path / "wbload-8"));

  auto ops = wb::read_io_trace_file(trace);
  REQUIRE(ops.size() == r.completed);
  REQUIRE(r.trace_ops == ops.size());
  std::map<wb::IoKind, double> share;
  for (const auto& op : ops) {
    share[op.kind] += 1.0 / static_cast<double>(ops.size());
    REQUIRE(op.offset % 4096 == 0);
    REQUIRE(op.offset + op.size <= 131072);
    REQUIRE(op.start_s < 1.0);
  }
  // 1000 draws of weights 6:3:1: each share within 5 points (> 3 standard deviations)
  CHECK(share[wb::IoKind::kRead] == Approx(0.6).margin(0.05));
  CHECK(share[wb::IoKind::kWrite] == Approx(0.3).margin(0.05));
  CHECK(share[wb::IoKind::kMeta] == Approx(0.1).margin(0.05));

  // A second run reuses the files: a read-only mix leaves them as they were.
  std::int64_t before = mtime_ns(dir.path / "wbload-3");
  std::string reads = write_file(work.path / "reads.toml",
                                 "protocol = \"file\"\n[keys]\ncount = 8\nfile_bytes = 131072\n"
                                 "[[op]]\nkind = \"read\"\nsize = 65536\nsequential = 0.5\n");
  auto again = run_wbload({"--protocol", "file", "--target", dir.path.string(), "--rate", "200", "--duration",
                           "0.5", "--connections", "2", "--mix", reads});
  CHECK(again.completed == 100);
  CHECK(mtime_ns(dir.path / "wbload-3") == before);
}

TEST_CASE("wbload --protocol file refuses a bad directory in one line with exit status 2", "[file]") {
  TempDir work("wbload_file_bad");
  std::string mix = write_file(work.path / "mix.toml", kMix);
  std::string plain = write_file(work.path / "plain", "x");
  std::string no_size =
      write_file(work.path / "nosize.toml", "protocol = \"file\"\n[[op]]\nkind = \"read\"\n");
  std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--target", (work.path / "missing").string(), "--mix", mix}, "missing"},
      {{"--target", plain, "--mix", mix}, "not a directory"},
      {{"--target", work.path.string(), "--mix", no_size}, "file_bytes"},
      {{"--target", work.path.string(), "--mix", mix, "--threads", "2"}, "--threads"},
  };
  for (auto& [args, what] : cases) {
    std::vector<std::string> cmd = {kWbload, "--protocol", "file", "--rate", "10", "--duration", "1"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    auto r = wbtest::run_command(cmd, 30);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(what));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}
