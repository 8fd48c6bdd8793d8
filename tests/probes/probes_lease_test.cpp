// One owner per probe (DESIGN.md "Security and failure"), through the real binary on the
// simulated testbed with a hidden deviation: agents started together run each probe once; a live
// agent's probe is never taken over, a dead one's is (at once on the same host, after the
// heartbeat timeout from another); `probe cancel` stops a running probe through its agent.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "tests/probes/probes_support.hpp"
#include "tests/sut/child_process.hpp"

using namespace wb::test::probes;

namespace {

// The deviating config with a longer runlength (each probe's search takes seconds of real time)
// and a short lease timeout, so that another host's dead agent is taken over quickly.
fs::path slow_config(const fs::path& dir) {
  fs::path p = deviating_config(dir);
  std::string text = read_file(p);
  const std::string key = "runlength_s = 60";
  auto at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.replace(at, key.size(), "runlength_s = 3000");
  auto tb = text.find("[testbed]\n");
  REQUIRE(tb != std::string::npos);
  text.insert(tb + std::string("[testbed]\n").size(), "lease_timeout_s = 3\n");
  std::ofstream(p) << text;
  return p;
}

// A store with probes planned: one peak at a deviating sample.
std::string planned_store(const fs::path& config, const fs::path& dir) {
  const std::string store = (dir / "w.db").string();
  auto r = workbench({"peak", "--config", config.string(), "--store", store, "--set", "disks=4,threads=100"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(std::stoi(query(store, "SELECT count(*) FROM probes")[0][0]) >= 2);
  return store;
}

// A fresh folder `name` with slow_config and a planned_store of it.
struct Planned {
  fs::path dir;
  fs::path config;
  std::string store;
};
Planned slow_planned(const std::string& name) {
  fs::path dir = fresh_dir(name);
  fs::path config = slow_config(dir);
  return {dir, config, planned_store(config, dir)};
}

// Waits until some probe is running and returns its id.
std::string running_probe(const std::string& store) {
  for (int i = 0; i < 600; ++i) {
    auto rows = query(store, "SELECT id FROM probes WHERE status = 'running'");
    if (!rows.empty()) return rows[0][0];
    std::this_thread::sleep_for(20ms);
  }
  FAIL("no probe started running within 12 s");
  return "";
}

std::vector<std::string> agent_args(const fs::path& config, const std::string& store) {
  return {kWorkbench, "agent", "--config", config.string(), "--store", store, "--once", "--max", "1"};
}

}  // namespace

TEST_CASE("two agents on one store at once, 10 rounds: every probe runs once, a cancelled one never") {
  fs::path dir = fresh_dir("lease_agents");
  fs::path config = deviating_config(dir);
  const std::string planned = planned_store(config, dir);
  const std::size_t probes = std::stoul(query(planned, "SELECT count(*) FROM probes")[0][0]);
  const std::int64_t before = max_search_id(planned);
  const std::string cancelled = query(planned, "SELECT max(id) FROM probes")[0][0];
  json c =
      run_json({"probe", "cancel", "--config", config.string(), "--store", planned, cancelled, "--json"});
  CHECK(c["cancelled"] == json::array({std::stoll(cancelled)}));
  CHECK(c["not_cancelled"].empty());
  for (int round = 0; round < 10; ++round) {
    INFO("round " << round);
    const std::string store = (dir / ("r" + std::to_string(round) + ".db")).string();
    fs::copy_file(planned, store, fs::copy_options::overwrite_existing);
    std::vector<std::string> args{kWorkbench, "agent", "--config", config.string(),
                                  "--store",  store,   "--once"};
    wb::test::ChildProcess a(args);
    wb::test::ChildProcess b(args);
    auto ea = a.wait_exit(300s);
    auto eb = b.wait_exit(300s);
    INFO("agent a: " << a.drain_stderr() << "\nagent b: " << b.drain_stderr());
    REQUIRE(ea == 0);
    REQUIRE(eb == 0);
    check_each_probe_ran_once(store, before, probes - 1);
    CHECK(query(store, "SELECT status, search_id FROM probes WHERE id = " + cancelled)[0] ==
          std::vector<std::string>{"cancelled", ""});
    CHECK(query(store, "PRAGMA integrity_check")[0][0] == "ok");
  }
}

TEST_CASE("a live agent's probe is not taken over, a killed agent's probe is") {
  const auto [dir, config, store] = slow_planned("lease_takeover");

  // Same host: the dead pid is seen at once.
  {
    wb::test::ChildProcess a(agent_args(config, store));
    const std::string id = running_probe(store);
    // Held by a live agent: another controller refuses it, even after the lease timeout.
    std::this_thread::sleep_for(4s);
    auto refused = workbench({"probe", "run", "--config", config.string(), "--store", store, id});
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("probe " + id + ": running, not run") != std::string::npos);
    a.send_signal(SIGKILL);
    REQUIRE(a.wait_exit(30s) == 128 + SIGKILL);
    auto taken = workbench({"probe", "run", "--config", config.string(), "--store", store, id});
    INFO(taken.err);
    CHECK(taken.exit_code == 0);
    CHECK(query(store, "SELECT status FROM probes WHERE id = " + id)[0][0] == "done");
  }
  // Another host: its lease is taken over only once its heartbeat is older than the timeout.
  {
    wb::test::ChildProcess a(agent_args(config, store));
    const std::string id = running_probe(store);
    a.send_signal(SIGKILL);
    REQUIRE(a.wait_exit(30s) == 128 + SIGKILL);
    std::vector<std::string> run_args{kWorkbench,      "probe",   "run", "--config",
                                      config.string(), "--store", store, id};
    auto other_host = [&] {
      std::vector<std::string> argv{"/usr/bin/env", "WB_HOST_NAME=another-host"};
      argv.insert(argv.end(), run_args.begin(), run_args.end());
      return run_to_exit(argv, 300s);
    };
    auto early = other_host();
    CHECK(early.exit_code == 1);  // the heartbeat is fresh: it may be alive
    std::this_thread::sleep_for(4s);
    auto late = other_host();
    INFO(late.err);
    CHECK(late.exit_code == 0);
    CHECK(query(store, "SELECT status FROM probes WHERE id = " + id)[0][0] == "done");
  }
}

TEST_CASE("probe cancel stops a running probe through its agent") {
  const auto [dir, config, store] = slow_planned("lease_cancel");
  wb::test::ChildProcess a(agent_args(config, store));
  const std::string id = running_probe(store);
  auto c = workbench({"probe", "cancel", "--config", config.string(), "--store", store, id, "--json"});
  INFO(c.err << c.out);
  REQUIRE(c.exit_code == 0);
  CHECK(json::parse(c.out)["cancelled"] == json::array({std::stoll(id)}));
  auto ea = a.wait_exit(60s);
  std::string err = a.drain_stderr();
  INFO(err);
  CHECK(ea == 0);
  CHECK(err.find("probe " + id + ": cancelled while it ran") != std::string::npos);
  CHECK(query(store, "SELECT status FROM probes WHERE id = " + id)[0][0] == "cancelled");
  // Its search stopped: interrupted, not finished, and no lease is left behind.
  CHECK(query(store, "SELECT count(*) FROM searches WHERE status = 'interrupted'")[0][0] == "1");
  CHECK(query(store, "SELECT count(*) FROM leases")[0][0] == "0");
  // A done or cancelled probe: nothing to cancel, said why.
  auto again = workbench({"probe", "cancel", "--config", config.string(), "--store", store, id});
  CHECK(again.exit_code == 1);
  CHECK(again.out.find("not cancelled: it is cancelled") != std::string::npos);
  auto again_json =
      workbench({"probe", "cancel", "--config", config.string(), "--store", store, id, "--json"});
  INFO(again_json.out);
  CHECK(json::parse(again_json.out)["not_cancelled"][0]["status"] == "cancelled");  // by name
}
