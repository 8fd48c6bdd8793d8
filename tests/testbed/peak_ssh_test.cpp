// `workbench peak` on a real testbed reached over SSH: a real OpenSSH sshd on loopback (the
// fixture), refserver and wbload uploaded by SFTP and run through it.
#include <signal.h>
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
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

// A small refserver testbed on the fixture's "remote" host.
// budget_s caps the search's cost (0: no cap).
std::string ssh_config(const wb::test::SshdFixture& sshd, const fs::path& dir, double runlength_s, int port,
                       double budget_s = 0) {
  return wb::test::write_ssh_refserver(
      dir, "ssh-test", sshd, port,
      fmt::format("start_rate = 100\nrunlength_s = {}\nmax_trials = 12\nmax_loads = 14\nbudget_s = {}\n",
                  runlength_s, budget_s));
}

int stored_trials(const fs::path& store) {
  return fs::exists(store) ? std::atoi(wb::test::query(store, "SELECT count(*) FROM trials").c_str()) : 0;
}

void wait_for_trials(const fs::path& store, int n) {
  for (int i = 0; i < 1200 && stored_trials(store) < n; ++i) std::this_thread::sleep_for(100ms);
  REQUIRE(stored_trials(store) >= n);
}

}  // namespace

TEST_CASE("peak over SSH uploads the programs, finds a peak and leaves nothing running") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("ssh_peak");
  fs::path store = dir / "w.db";
  std::string config = ssh_config(sshd, dir, 2, wb::test::free_port());

  auto check = wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", config}, 60s);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.out, Catch::Contains("workbench uploads it"));  // nothing there yet

  auto r = wb::test::run_to_exit(
      {kWorkbench, "peak", "--config", config, "--store", store.string(), "--json"}, 600s);
  INFO(r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["status"] == "found");
  CHECK(fs::exists(dir / "work" / "wbload"));
  CHECK(fs::exists(dir / "work" / "refserver"));
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == j["trials"].dump());
  CHECK(sshd.count_log("Accepted publickey") <= 4);  // a session per host, reused (plus hosts check)
  std::this_thread::sleep_for(500ms);
  CHECK(wb::test::count_processes((dir / "work").string()) == 0);
  fs::remove_all(dir);
}

TEST_CASE("Ctrl-C of peak over SSH stops the remote SUT and generator") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("ssh_sigint");
  fs::path store = dir / "w.db";
  std::string config = ssh_config(sshd, dir, 20, wb::test::free_port());
  wb::test::ChildProcess child({kWorkbench, "peak", "--config", config, "--store", store.string()});
  wait_for_trials(store, 1);
  // A trial is under way now: the SUT and a generator run on the "remote" host.
  std::this_thread::sleep_for(2s);
  CHECK(wb::test::count_processes((dir / "work" / "refserver").string()) >= 1);
  CHECK(wb::test::count_processes((dir / "work" / "wbload").string()) >= 1);
  child.send_signal(SIGINT);
  auto code = child.wait_exit(60s);
  REQUIRE(code.has_value());
  CHECK(*code == 130);
  std::this_thread::sleep_for(500ms);
  CHECK(wb::test::count_processes((dir / "work").string()) == 0);
  CHECK(wb::test::query(store, "SELECT status FROM searches") == "interrupted");  // resumable
  fs::remove_all(dir);
}

TEST_CASE(
    "a connection killed mid-trial fails that trial clearly — the search retries and keeps every trial") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("ssh_drop");
  fs::path store = dir / "w.db";
  std::string config = ssh_config(sshd, dir, 4, wb::test::free_port(), 60);
  wb::test::ChildProcess child(
      {kWorkbench, "peak", "--config", config, "--store", store.string(), "--json", "--verbose"});
  wait_for_trials(store, 1);
  std::this_thread::sleep_for(1500ms);  // into the second trial
  sshd.kill_connections();
  auto code = child.wait_exit(600s);
  REQUIRE(code.has_value());
  std::string out = child.drain_stdout(), err = child.drain_stderr();
  INFO(err);
  auto j = nlohmann::json::parse(out);
  CHECK_THAT(err, Catch::Contains("connection lost"));
  // Retried once on a new connection: the search went on (to a result or to its 60 s budget).
  CHECK(j["status"] != "failed");
  CHECK(j["trials"].get<int>() >= 2);
  CHECK(wb::test::query(store, "SELECT count(*) FROM trials") == j["trials"].dump());
  CHECK(wb::test::query(store, "PRAGMA integrity_check") == "ok");
  std::this_thread::sleep_for(500ms);
  CHECK(wb::test::count_processes((dir / "work").string()) == 0);
  fs::remove_all(dir);
}
