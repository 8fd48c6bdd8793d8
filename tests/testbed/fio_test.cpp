// configs/fio.toml with the real fio on a scratch file: `workbench trial` and a short
// `workbench peak` store sane trials, the scratch folder goes with the SUT, nothing keeps running;
// and a colliding fio argument is refused at load.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "testbed_support.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using wb::test::kWorkbench;

// configs/fio.toml in `dir` on `port` (the scratch folder's name), each `edits` pair replacing
// its first text by its second.
std::string fio_config(const fs::path& dir, int port,
                       const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = wb::test::read_text(std::string(WB_SOURCE_DIR) + "/configs/fio.toml");
  auto replace = [&](const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("port = 7415", fmt::format("port = {}", port));
  for (const auto& [from, to] : edits) replace(from, to);
  fs::path p = dir / "fio.toml";
  std::ofstream(p) << text;
  return p.string();
}

std::string fio_scratch(int port) { return fmt::format("/var/tmp/wb-fio-{}", port); }

// The SUT's waiter: its command line does not name the scratch folder, so it is counted as a whole
// (before and after a test; another user's would only make the check pass less often, never wrongly).
int fio_waiters() { return wb::test::count_processes("sleep infinity"); }

// Line (1-based) of the first line of `file` containing `needle`.
int fio_line_of(const std::string& file, const std::string& needle) {
  std::istringstream in(wb::test::read_text(file));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(needle) != std::string::npos) return n;
  }
  return 0;
}

}  // namespace

TEST_CASE("workbench trial with fio stores sane trials and leaves no fio or scratch file behind") {
  fs::path dir = wb::test::fresh_dir("fio_trial");
  fs::path store = dir / "fio.db";
  const int port = wb::test::free_port();
  std::string config = fio_config(dir, port, {{"256m", "32m"}, {"--size=256m", "--size=32m"}});
  const int waiters = fio_waiters();
  // 200 I/Os per second over 2 jobs: a few percent of this disk.
  auto r = wb::test::run_to_exit(
      {kWorkbench, "trial", "--config", config, "--store", store.string(), "--set",
       "iodepth=4,numjobs=2,bs=4k", "--rate", "200", "--runlength", "2", "--trials", "2"},
      120s);
  INFO(r.err);
  INFO(r.out);
  CHECK((r.exit_code == 0 || r.exit_code == 1));  // 1: the expectation model disagreed
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == "2");
  CHECK(std::stoi(wb::test::query(store, "SELECT min(completed) FROM trials")) > 300);
  CHECK(wb::test::query(store, "SELECT sum(errors) FROM trials") == "0");
  // Poisson counts over 2 s at 200/s: 10% is over 3 standard deviations.
  const double achieved = std::stod(wb::test::query(store, "SELECT avg(achieved_rate) FROM trials"));
  CHECK(achieved == Approx(200).epsilon(0.1));
  const double mean_ms = std::stod(wb::test::query(store, "SELECT avg(mean_ms) FROM trials"));
  CHECK(mean_ms > 0.005);  // a real device, not a cache
  CHECK(mean_ms < 50);
  std::this_thread::sleep_for(300ms);
  CHECK(wb::test::count_processes(fio_scratch(port)) == 0);  // neither fio nor the SUT's shell
  CHECK(fio_waiters() <= waiters);
  CHECK(!fs::exists(fio_scratch(port)));  // the SUT's trap removed it
  fs::remove_all(dir);
}

TEST_CASE("a short workbench peak with fio stores only sane trials") {
  fs::path dir = wb::test::fresh_dir("fio_peak");
  fs::path store = dir / "fio.db";
  const int port = wb::test::free_port();
  std::string config = fio_config(dir, port,
                                  {{"256m", "32m"},
                                   {"--size=256m", "--size=32m"},
                                   {"start_rate = 16000", "start_rate = 500"},
                                   {"runlength_s = 3", "runlength_s = 1"},
                                   {"max_trials = 12", "max_trials = 3"},
                                   {"max_loads = 16", "max_loads = 3"}});
  const int waiters = fio_waiters();
  auto r = wb::test::run_to_exit({kWorkbench, "peak", "--config", config, "--store", store.string(), "--set",
                                  "iodepth=1,numjobs=1,bs=4k", "--json"},
                                 200s);
  INFO(r.err);
  INFO(r.out);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["sample"]["bs"] == "4k");
  CHECK(std::stoi(wb::test::query(store, "SELECT count(*) FROM trials")) >= 2);
  CHECK(std::stoi(wb::test::query(store, "SELECT min(completed) FROM trials")) > 0);
  // The first load (start_rate 500/s) is well inside this device's reach: no errors, all achieved.
  CHECK(wb::test::query(store, "SELECT sum(errors) FROM trials WHERE load_index = 0") == "0");
  const double achieved =
      std::stod(wb::test::query(store, "SELECT min(achieved_rate / rate) FROM trials WHERE load_index = 0"));
  CHECK(achieved > 0.85);
  std::this_thread::sleep_for(300ms);
  CHECK(wb::test::count_processes(fio_scratch(port)) == 0);
  CHECK(fio_waiters() <= waiters);
  CHECK(!fs::exists(fio_scratch(port)));
  fs::remove_all(dir);
}

TEST_CASE("a fio argument that sets what workbench owns is refused with file, line and key") {
  fs::path dir = wb::test::fresh_dir("fio_bad");
  const int port = wb::test::free_port();
  std::string config = fio_config(dir, port, {{"\"--direct=1\"]", "\"--direct=1\", \"--runtime=30\"]"}});
  const std::string where = fmt::format("fio.toml:{}:workload.args", fio_line_of(config, "args = ["));
  auto r = wb::test::check_refused(
      {"trial", "--config", config, "--store", (dir / "w.db").string(), "--rate", "100"}, where, 60s);
  CHECK_THAT(r.err, Catch::Contains("--runtime=30"));
  CHECK_FALSE(fs::exists(dir / "w.db"));  // refused before anything ran
  CHECK_FALSE(fs::exists(fio_scratch(port)));
  fs::remove_all(dir);
}

TEST_CASE("with [workload] trace = true a fio trial stores its I/Os as a trace of the shared file") {
  fs::path dir = wb::test::fresh_dir("fio_trace");
  fs::path store = dir / "fio.db";
  const int port = wb::test::free_port();
  std::string config = fio_config(
      dir, port,
      {{"256m", "32m"}, {"--size=256m", "--size=32m"}, {"[workload]\n", "[workload]\ntrace = true\n"}});
  auto r = wb::test::run_to_exit(
      {kWorkbench, "trial", "--config", config, "--store", store.string(), "--set",
       "iodepth=4,numjobs=2,bs=4k", "--rate", "200", "--runlength", "2", "--trials", "2"},
      120s);
  INFO(r.err);
  CHECK((r.exit_code == 0 || r.exit_code == 1));  // 1: the expectation model disagreed
  // Every completed I/O of the window is one line (fio logs no ramp), a 4 KiB read inside the file.
  CHECK(wb::test::query(store, "SELECT count(*) FROM trial_traces") == "2");
  CHECK(wb::test::query(store,
                        "SELECT count(*) FROM trial_traces x JOIN trials t ON t.id = x.trial_id "
                        "WHERE x.ops < t.completed * 0.9 OR x.ops > t.completed * 1.1") == "0");
  auto t = wb::test::run_to_exit(
      {kWorkbench, "trace", "--config", config, "--store", store.string(), "--trial", "1"}, 30s);
  REQUIRE(t.exit_code == 0);
  std::istringstream csv(t.out);
  std::string line;
  std::getline(csv, line);
  CHECK(line == "op,file,offset,size,start_s,duration_s");
  int lines = 0;
  while (std::getline(csv, line)) {
    ++lines;
    CHECK(line.rfind("read,/var/tmp/wb-fio-{port}/data,", 0) == 0);  // the file as [workload] args name it
  }
  CHECK(lines > 300);
  // fio's logs are gone from the host.
  CHECK(wb::test::count_processes(fio_scratch(port)) == 0);
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path())) {
    const std::string name = e.path().filename().string();
    CHECK_FALSE((name.rfind("wb-trace-", 0) == 0 && name.find("lat.") != std::string::npos));
  }
  fs::remove_all(dir);
}
