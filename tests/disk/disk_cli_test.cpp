// `workbench disk calibrate` as a user runs it, for behaviour only (label process): bad flags
// refused with exit 2 before fio runs, fio missing, Ctrl-C mid-run (fio stopped, scratch file
// removed), a user's own file kept, and O_DIRECT refused (--direct auto falls back, yes fails).
// Runs of 0.2 s on small files; nothing here depends on the device's speed.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/harness/process_table.hpp"
#include "tests/support/workbench_cli.hpp"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using wb::test::kWorkbench;

std::vector<std::string> calibrate(const fs::path& file, const fs::path& out,
                                   const std::vector<std::string>& more) {
  std::vector<std::string> args{"disk", "calibrate", "--file", file.string(), "--out", out.string()};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("disk calibrate refuses bad flags with exit 2 naming the flag, before fio runs") {
  const fs::path dir = wb::test::temp_dir("disk", "refused");
  const fs::path file = dir / "scratch", out = dir / "disk.json";
  using wb::test::check_refused;
  check_refused(calibrate(file, out, {"--size", "12X"}), "--size", 30s);
  check_refused(calibrate(file, out, {"--size", "0"}), "--size", 30s);
  check_refused(calibrate(file, out, {"--size", "16M", "--rand-bs", "1G"}),
                "--rand-bs 1 GiB: larger than --size 16 MiB", 30s);
  check_refused(calibrate(file, out, {"--seq-bs", "1.5M"}), "--seq-bs", 30s);
  check_refused(calibrate(file, out, {"--runtime", "0"}), "--runtime", 30s);
  check_refused(calibrate(file, out, {"--iodepth", "0"}), "--iodepth", 30s);
  check_refused(calibrate(file, out, {"--direct", "maybe"}), "--direct", 30s);
  check_refused(calibrate(dir / "none" / "scratch", out, {}), "--file", 30s);
  check_refused(calibrate(file, dir / "none" / "disk.json", {}), "--out", 30s);
  check_refused(calibrate(file, file, {}), "--out", 30s);
  check_refused({"disk", "calibrate", "--out", out.string()}, "--file", 30s);
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

TEST_CASE("disk calibrate without fio says so in one line") {
  const fs::path dir = wb::test::temp_dir("disk", "nofio");
  const fs::path file = dir / "scratch", out = dir / "disk.json";
  std::vector<std::string> argv{"/usr/bin/env", "PATH=" + dir.string(), kWorkbench};
  for (const auto& a : calibrate(file, out, {"--size", "1M", "--runtime", "0.2"})) argv.push_back(a);
  auto r = wb::test::run_to_exit(argv, 30s);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err == "workbench: fio is not installed or not on PATH (Debian: apt-get install fio)\n");
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

TEST_CASE("Ctrl-C during disk calibrate stops fio, removes the scratch file and writes nothing") {
  const fs::path dir = wb::test::temp_dir("disk", "interrupt");
  const fs::path file = dir / "scratch", out = dir / "disk.json";
  std::vector<std::string> argv{kWorkbench};
  for (const auto& a : calibrate(file, out, {"--size", "8M", "--runtime", "30"})) argv.push_back(a);
  wb::test::ChildProcess child(argv);
  // The file's path is in the command line of workbench, its guard and fio (and fio's job process).
  REQUIRE(wb::test::wait_for_process("fio", file.string(), 20s));
  std::this_thread::sleep_for(300ms);
  child.send_signal(SIGINT);
  auto code = child.wait_exit(20s);
  REQUIRE(code);
  INFO(child.drain_stderr());
  CHECK(*code == 130);
  CHECK(wb::test::survivors_after(file.string(), 5s).empty());
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

TEST_CASE("disk calibrate keeps a file the user gave and prints its four runs") {
  const fs::path dir = wb::test::temp_dir("disk", "existing");
  const fs::path file = dir / "mine", out = dir / "disk.json";
  std::ofstream(file) << std::string(1 << 20, 'x');
  auto r = wb::test::run_workbench(
      calibrate(file, out, {"--size", "1M", "--runtime", "0.2", "--seq-bs", "64k"}), 120s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::exists(file));
  for (const char* run : {"sequential read", "sequential write", "random read", "random write"})
    CHECK_THAT(r.out, Catch::Contains(run));
  CHECK_THAT(r.out, Catch::Contains("64 KiB") && Catch::Contains("written to " + out.string()));
  auto j = nlohmann::json::parse(wb::test::read_text(out));
  CHECK(j["provenance"]["file"] == file.string());
  CHECK(j["random_io_size"] == 4096);
  fs::remove_all(dir);
}

TEST_CASE("O_DIRECT refused: --direct auto measures buffered and says so, --direct yes fails") {
  const fs::path dir = wb::test::temp_dir("disk", "direct");
  const fs::path file = dir / "scratch", out = dir / "disk.json";
  // No device takes direct I/Os of 1000 bytes, whatever its file system: fio reports EINVAL as it
  // does where the file system refuses O_DIRECT (tmpfs before Linux 6.6).
  const std::vector<std::string> odd{"--size",   "1000000", "--runtime", "0.2",
                                     "--seq-bs", "1000",    "--rand-bs", "1000"};
  auto more = odd;
  more.push_back("--json");
  auto r = wb::test::run_workbench(calibrate(file, out, more), 120s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("O_DIRECT refused on " + file.string()) &&
                        Catch::Contains("measuring buffered I/O instead"));
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["out"] == out.string());
  CHECK(j["disk"]["provenance"]["direct"] == false);
  CHECK(j["disk"]["provenance"]["runs"].size() == 4);
  CHECK_FALSE(fs::exists(file));

  fs::remove(out);
  more = odd;
  more.insert(more.end(), {"--direct", "yes"});
  r = wb::test::run_workbench(calibrate(file, out, more), 120s);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("O_DIRECT refused") && Catch::Contains("try --direct auto or no"));
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}
