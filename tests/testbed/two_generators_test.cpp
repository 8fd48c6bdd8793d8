// Two generator hosts in one trial: wbload on this machine and wbload on an SSH host (the real sshd
// fixture on loopback), each offered half of λ against one local refserver; the trial's result is
// their merge.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "sshd_fixture.hpp"
#include "testbed_support.hpp"
#include "tests/support/testbed_toml.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using wb::test::kWorkbench;

std::string two_generator_config(const wb::test::SshdFixture& sshd, const fs::path& dir, int port) {
  wb::test::RefserverTestbed t{.name = "two-generators", .peak = "runlength_s = 1\n"};
  t.hosts = {"name = \"here\"\n", wb::test::ssh_host("remote", sshd, dir / "work")};
  t.sut_host = "here";
  t.port = port;
  t.sut = wb::test::refserver_start("{disks}", "0.1", "1");
  t.load_hosts = {"here", "remote"};
  t.workload = "arrivals = \"constant\"\nwarmup_s = 0.3\n";
  return wb::test::write_testbed(dir / "two.toml", t);
}

struct GeneratorLine {
  std::string host;
  double offered = 0;
  long long sent = 0;
  long long completed = 0;
  long long errors = 0;
};

// The runner's per-generator lines on stderr (--verbose), in order.
std::vector<GeneratorLine> generator_lines(const std::string& err) {
  static const std::regex re(
      R"(wbload on (\S+): offered ([0-9.]+)/s, sent (\d+), completed (\d+), errors (\d+))");
  std::vector<GeneratorLine> out;
  for (auto it = std::sregex_iterator(err.begin(), err.end(), re); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out.push_back({m[1].str(), std::stod(m[2].str()), std::stoll(m[3].str()), std::stoll(m[4].str()),
                   std::stoll(m[5].str())});
  }
  return out;
}

}  // namespace

TEST_CASE("a trial on two generator hosts (local and SSH) splits λ and merges their counts exactly") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("two_generators");
  fs::path store = dir / "w.db";
  const int port = wb::test::free_port();
  std::string config = two_generator_config(sshd, dir, port);
  const double rate = 200;

  auto r = wb::test::run_to_exit(
      {kWorkbench, "trial", "--config", config, "--store", store.string(), "--rate",
       fmt::format("{:g}", rate), "--runlength", "1", "--trials", "2", "--json", "--verbose"},
      120s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["trials"].size() == 2);
  CHECK(fs::exists(dir / "work" / "wbload"));  // uploaded to the SSH host

  auto lines = generator_lines(r.err);
  REQUIRE(lines.size() == 4);  // two generators per trial
  for (std::size_t i = 0; i < 2; ++i) {
    const GeneratorLine& a = lines[2 * i];
    const GeneratorLine& b = lines[2 * i + 1];
    CHECK(a.host == "here");
    CHECK(b.host == "remote");
    CHECK(a.offered == Approx(rate / 2));
    CHECK(b.offered == Approx(rate / 2));
    CHECK(a.completed >= 80);  // ~100 each over 1 s; neither generator sat idle
    CHECK(b.completed >= 80);
    const auto& t = j["trials"][i];
    CHECK(t["completed"].get<long long>() == a.completed + b.completed);
    CHECK(t["errors"].get<long long>() == a.errors + b.errors);
    CHECK(t["offered_rate"].get<double>() == Approx(rate));
    const std::string stored = wb::test::query(
        store, fmt::format("SELECT completed FROM trials WHERE search_id = {} ORDER BY id LIMIT 1 OFFSET {}",
                           j["run_id"].get<long long>(), i));
    CHECK(stored == std::to_string(a.completed + b.completed));
  }
  std::this_thread::sleep_for(300ms);
  CHECK(wb::test::count_processes((dir / "work").string()) == 0);          // remote wbload
  CHECK(wb::test::count_processes(fmt::format("--port {} ", port)) == 0);  // the local refserver
  fs::remove_all(dir);
}

// [sut] restart: "per-sample" (the default) starts the SUT once for a sample's trials,
// "per-trial" starts a fresh one for each trial and stops it after.
TEST_CASE("restart = per-trial starts and stops the SUT around every trial, per-sample once") {
  fs::path dir = wb::test::fresh_dir("restart");
  const int port = wb::test::free_port();
  for (const std::string restart : {"per-sample", "per-trial"}) {
    fs::path config = dir / (restart + ".toml");
    wb::test::RefserverTestbed t{.name = "restart", .threads = 2, .disks = 0, .peak = "runlength_s = 1\n"};
    t.hosts = {"name = \"here\"\n"};
    t.sut_host = "here";
    t.port = port;
    t.sut = wb::test::refserver_start("1", "0.1", "1") + "\nrestart = \"" + restart + "\"";
    t.load_hosts = {"here"};
    t.connections = 2;
    t.workload = "warmup_s = 0.2\n";
    wb::test::write_testbed(config, t);
    auto r = wb::test::run_to_exit(
        {kWorkbench, "trial", "--config", config.string(), "--store", (dir / (restart + ".db")).string(),
         "--rate", "50", "--runlength", "0.5", "--trials", "3", "--json", "--verbose"},
        120s);
    INFO(restart << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(nlohmann::json::parse(r.out)["trials"].size() == 3);
    std::size_t starts = 0;
    for (auto pos = r.err.find("starting SUT for"); pos != std::string::npos;
         pos = r.err.find("starting SUT for", pos + 1))
      ++starts;
    CHECK(starts == (restart == "per-trial" ? 3u : 1u));
    std::this_thread::sleep_for(300ms);
    CHECK(wb::test::count_processes(fmt::format("--port {} ", port)) == 0);
  }
  fs::remove_all(dir);
}
