// The next controller kills what a dead one left (process_cleanup.hpp), with real processes on
// this machine and through a real sshd: a dead owner's group is killed (and said on the log), a
// live owner's is left alone, a reused group id is never killed, and rows of dead owners go.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "experiment/process_cleanup.hpp"
#include "harness/local_executor.hpp"
#include "harness/real_trial_runner.hpp"
#include "harness/ssh_executor.hpp"
#include "process_table.hpp"
#include "ssh_test_options.hpp"
#include "sshd_fixture.hpp"

using namespace wb;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr const char* kTree = "sleep 1000 & sh -c 'trap \"\" TERM; sleep 1000; :' & echo started; wait";

fs::path fresh_store(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("wb_cleanup_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir / "w.db";
}

// A row for `p` on `host`, owned by `owner`.
store::Store::ProcessRow row_for(const Process& p, const std::string& host, const OwnerId& owner) {
  store::Store::ProcessRow r;
  r.testbed = "tb";
  r.host = host;
  r.pgid = p.group().pgid;
  r.start_ticks = p.group().start_ticks;
  r.command = "sh -c tree";
  r.owner = owner;
  return r;
}

// This machine's name with a pid that runs but started at another time: a dead controller
// whose pid was reused.
OwnerId dead_owner() {
  OwnerId o = this_process();
  o.start_ticks += 1;
  return o;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("cleanup on this machine: kills a dead owner's group, spares a live owner's and a reused id") {
  const fs::path path = fresh_store("local");
  store::Store s(path.string());
  TestbedConfig tb;
  tb.hosts.push_back(HostConfig{});
  tb.hosts.back().name = "here";

  auto ex = make_local_executor();
  const std::string orphan = test::make_marker(), owned = test::make_marker(), reused = test::make_marker();
  auto start = [&](const std::string& marker) {
    auto p = ex->start({{"/bin/sh", "-c", kTree}, {{"WB_TEST_MARKER", marker}}, {}, 0ms});
    REQUIRE(p->read_line(10s) == std::optional<std::string>("started"));
    return p;
  };
  auto a = start(orphan), b = start(owned), c = start(reused);
  auto done = ex->start({{"true"}, {}, {}, 0ms});
  REQUIRE(done->wait(10s));

  s.add_process(row_for(*a, "local", dead_owner()));
  const std::int64_t kept = s.add_process(row_for(*b, "local", this_process()));
  store::Store::ProcessRow r = row_for(*c, "local", dead_owner());
  r.start_ticks += 1;  // the id now names a process that started later: not ours
  s.add_process(r);
  s.add_process(row_for(*done, "local", dead_owner()));  // ended long ago

  std::ostringstream log;
  CleanupOptions o;
  o.kill_grace = 200ms;
  CHECK(kill_orphaned_processes(s, "tb", tb, log, o) == 1);
  const auto said = lines(log.str());
  REQUIRE(said.size() == 1);
  CHECK(said[0] == "workbench: killed pgid " + std::to_string(a->group().pgid) +
                       " on local (sh -c tree), left by dead controller " + dead_owner().describe());
  CHECK(test::survivors_after(orphan, 2s).empty());
  CHECK(test::pids_named("sleep", owned).size() == 2);
  CHECK(test::pids_named("sleep", reused).size() == 2);
  const auto rows = s.processes("tb");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].id == kept);

  // Another machine's local processes cannot be reached from here: left, and so is the row.
  store::Store::ProcessRow foreign = row_for(*b, "local", OwnerId{"elsewhere", 1, 1});
  foreign.started_at = 1;  // as old as can be
  s.add_process(foreign);
  CHECK(kill_orphaned_processes(s, "tb", tb, log, o) == 0);
  CHECK(s.processes("tb").size() == 2);
  CHECK(test::pids_named("sleep", owned).size() == 2);
  fs::remove_all(path.parent_path());
}

TEST_CASE("cleanup over SSH: a dead owner's remote group is killed through the testbed's host") {
  test::SshdFixture sshd;
  const fs::path path = fresh_store("ssh");
  store::Store s(path.string());
  TestbedConfig tb;
  HostConfig h;
  h.name = "remote";
  h.local = false;
  h.address = sshd.host();
  h.port = sshd.port();
  h.user = sshd.user();
  h.identity = sshd.client_key();
  h.known_hosts = sshd.known_hosts();
  tb.hosts.push_back(h);
  HostConfig gone = h;
  gone.port = 1;  // a host this testbed no longer has
  const std::string gone_host = host_description(gone);

  // The group runs under its own live connection (so its guard does not fire): only the
  // cleanup's kill can end it.
  auto ex = make_ssh_executor(test::options_for(sshd));
  REQUIRE(ex->describe() == host_description(h));
  const std::string marker = test::make_marker();
  auto p = ex->start({{"/bin/sh", "-c", kTree}, {{"WB_TEST_MARKER", marker}}, {}, 0ms});
  REQUIRE(p->read_line(10s) == std::optional<std::string>("started"));
  REQUIRE(p->group().start_ticks > 0);
  s.add_process(row_for(*p, ex->describe(), dead_owner()));
  const std::int64_t unreachable = s.add_process(row_for(*p, gone_host, dead_owner()));

  std::ostringstream log;
  CleanupOptions o;
  o.kill_grace = 200ms;
  CHECK(kill_orphaned_processes(s, "tb", tb, log, o) == 1);
  INFO(log.str());
  const auto said = lines(log.str());
  REQUIRE(said.size() == 2);
  CHECK_THAT(said[0], Catch::StartsWith("workbench: killed pgid " + std::to_string(p->group().pgid) + " on " +
                                        ex->describe()));
  CHECK_THAT(said[1], Catch::Contains("is no host of testbed tb any more"));
  CHECK(test::survivors_after(marker, 3s).empty());
  const auto rows = s.processes("tb");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].id == unreachable);
  const auto r = p->wait(5s);
  REQUIRE(r);
  CHECK(r->exit_signal == std::optional<std::string>("TERM"));
  fs::remove_all(path.parent_path());
}
