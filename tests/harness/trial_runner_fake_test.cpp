// RealTrialRunner over FakeExecutors (tests/support/fake_executor.hpp): the SUT lifecycle (start,
// ready, restart per sample, stop), the trial (each generator's share of λ, their histograms merged
// exactly), deadlines, failures and cleanup — without processes or real time.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/config.hpp"
#include "core/error.hpp"
#include "harness/real_trial_runner.hpp"
#include "harness/testbed_config.hpp"
#include "tests/support/fake_executor.hpp"
#include "workloads/result.hpp"

using namespace wb;
using wb::test::FakeBehaviour;
using wb::test::FakeExecutor;
using wb::test::FakeLog;

namespace {

// A SUT host and two generator hosts, all "local" so nothing is uploaded.
const char* kConfig = R"([testbed]
name = "fake"

[factors.threads]
levels = [2, 4]

[peak]
r_sat_ms = 8
width = 0.2
target = "90/70"
runlength_s = 10

[[hosts]]
name = "s"
[[hosts]]
name = "g1"
[[hosts]]
name = "g2"

[sut]
host = "s"
setup = ["prepare --threads {threads}"]
start = "server --threads {threads} --port {port}"
port = 7000

[workload]
hosts = ["g1", "g2"]
protocol = "rpc"
target = "127.0.0.1:{port}"
warmup_s = 0.5
timeout_s = 1
deadline_slack_s = 1
)";

std::string flag(const CommandSpec& spec, const std::string& name) {
  auto it = std::find(spec.argv.begin(), spec.argv.end(), name);
  REQUIRE(it != spec.argv.end());
  REQUIRE(it + 1 != spec.argv.end());
  return *(it + 1);
}

// What wbload prints for the rate and duration on its command line: every request answered in
// `latency_ms`.
std::string wbload_json(const CommandSpec& spec, double latency_ms) {
  LoadResult r;
  r.offered_rate = std::stod(flag(spec, "--rate"));
  r.duration_s = std::stod(flag(spec, "--duration"));
  r.sent = r.completed = static_cast<std::uint64_t>(std::llround(r.offered_rate * r.duration_s));
  r.achieved_rate = static_cast<double>(r.completed) / r.duration_s;
  r.histogram.record_n(static_cast<std::uint64_t>(latency_ms * 1e6), r.completed);
  return to_json(r).dump();
}

// The script of a test: how the SUT and each generator behave.
struct Script {
  FakeBehaviour sut{{"starting", "ready"}, std::nullopt, true};
  std::map<std::string, std::function<FakeBehaviour(const CommandSpec&)>> generator;

  Script() {
    for (auto [host, ms] : {std::pair{"g1", 2.0}, std::pair{"g2", 6.0}}) {
      generator[host] = [ms = ms](const CommandSpec& spec) {
        return FakeBehaviour{{}, CommandResult{0, std::nullopt, wbload_json(spec, ms), "", false}, false};
      };
    }
  }
};

struct Bench {
  Config config = Config::parse(kConfig, "fake.toml");
  std::shared_ptr<FakeLog> log = std::make_shared<FakeLog>();
  Script script;
  std::map<std::string, std::shared_ptr<bool>> dropped;  // per host, once connected

  RealTrialRunner runner() {
    RealRunnerOptions o;
    o.programs = {"/opt/wb/wbload", "/opt/wb/refserver"};
    o.connect = [this](const HostConfig& h) {
      const std::string name = h.name;
      auto e = std::make_unique<FakeExecutor>(name, log, [this, name](const CommandSpec& spec) {
        return name == "s" ? script.sut : script.generator.at(name)(spec);
      });
      dropped[name] = e->dropped;
      return e;
    };
    return RealTrialRunner(config, parse_testbed(config), std::move(o));
  }
};

Sample threads(int n) {
  Sample s;
  s.set("threads", std::to_string(n));
  return s;
}

std::vector<std::string> started(const FakeLog& log, const std::string& host) {
  std::vector<std::string> out;
  for (const auto& c : log.starts) {
    if (c.host == host) out.push_back(fmt::format("{}", fmt::join(c.spec.argv, " ")));
  }
  return out;
}

}  // namespace

TEST_CASE("fake testbed: setup, start, ready, then each generator gets its share and histograms merge") {
  Bench b;
  auto runner = b.runner();
  TrialResult t = runner.run(threads(2), 100, 10, 0);
  REQUIRE(b.log->runs.size() == 1);
  CHECK(b.log->runs[0].host == "s");
  CHECK(b.log->runs[0].spec.argv == std::vector<std::string>{"prepare", "--threads", "2"});
  CHECK(started(*b.log, "s") == std::vector<std::string>{"server --threads 2 --port 7000"});
  // λ split evenly; each wbload is /opt/wb/wbload with its deadline: warm-up + r + timeout + slack.
  for (const char* g : {"g1", "g2"}) {
    REQUIRE(started(*b.log, g).size() == 1);
    const auto& spec = std::find_if(b.log->starts.begin(), b.log->starts.end(), [&](const auto& c) {
                         return c.host == g;
                       })->spec;
    CHECK(spec.argv.front() == "/opt/wb/wbload");
    CHECK(std::stod(flag(spec, "--rate")) == Approx(50));
    CHECK(flag(spec, "--target") == "127.0.0.1:7000");
    CHECK(spec.deadline == std::chrono::milliseconds(12500));
  }
  // Merged exactly: 500 requests at 2 ms and 500 at 6 ms.
  CHECK(t.sent == 1000);
  CHECK(t.completed == 1000);
  CHECK(t.errors == 0);
  CHECK(t.achieved_rate == Approx(100));
  CHECK(t.mean_ms == Approx(4).epsilon(0.01));
  CHECK(t.p50_ms == Approx(2).epsilon(0.01));
  CHECK(t.p90_ms == Approx(6).epsilon(0.01));
  CHECK(b.log->running == 1);  // the SUT stays up for the next trial
}

TEST_CASE("fake testbed: the SUT restarts only when the sample changes, and stops with the runner") {
  Bench b;
  {
    auto runner = b.runner();
    runner.run(threads(2), 100, 10, 0);
    runner.run(threads(2), 120, 10, 1);
    CHECK(started(*b.log, "s").size() == 1);
    runner.run(threads(4), 100, 10, 2);
    CHECK(started(*b.log, "s") ==
          std::vector<std::string>{"server --threads 2 --port 7000", "server --threads 4 --port 7000"});
    CHECK(b.log->stopped == std::vector<std::string>{"server"});
    CHECK(b.log->runs.size() == 2);  // setup once per start
    CHECK(b.log->running == 1);
  }
  CHECK(b.log->stopped == std::vector<std::string>{"server", "server"});
  CHECK(b.log->running == 0);
}

TEST_CASE("fake testbed: a generator past its deadline fails the trial, naming it, and stops the SUT") {
  Bench b;
  b.script.generator["g2"] = [](const CommandSpec&) { return FakeBehaviour{{}, std::nullopt, true}; };
  auto runner = b.runner();
  REQUIRE_THROWS_WITH(runner.run(threads(2), 100, 10, 0),
                      Catch::Contains("wbload on g2 passed the trial's deadline") &&
                          Catch::Contains("warm-up 0.5 + runlength 10 + timeout_s 1 + deadline_slack_s 1"));
  CHECK(b.log->running == 0);  // SUT stopped, both generators ended
  // The next trial starts the SUT afresh.
  b.script.generator["g2"] = b.script.generator["g1"];
  runner.run(threads(2), 100, 10, 1);
  CHECK(started(*b.log, "s").size() == 2);
}

TEST_CASE("fake testbed: a failing or garbled generator fails the trial and stops the SUT") {
  Bench b;
  SECTION("exit 3") {
    b.script.generator["g1"] = [](const CommandSpec&) {
      return FakeBehaviour{{}, CommandResult{3, std::nullopt, "", "cannot connect", false}, false};
    };
    auto runner = b.runner();
    REQUIRE_THROWS_WITH(runner.run(threads(2), 100, 10, 0),
                        Catch::Contains("wbload on g1 failed (exit 3)") && Catch::Contains("cannot connect"));
  }
  SECTION("garbage on stdout") {
    b.script.generator["g1"] = [](const CommandSpec&) {
      return FakeBehaviour{{}, CommandResult{0, std::nullopt, "{\"sent\": -4}", "", false}, false};
    };
    auto runner = b.runner();
    REQUIRE_THROWS_WITH(runner.run(threads(2), 100, 10, 0), Catch::Contains("wbload on g1 printed"));
  }
  SECTION("a result for another rate") {
    b.script.generator["g1"] = [](const CommandSpec& spec) {
      CommandSpec other = spec;
      auto it = std::find(other.argv.begin(), other.argv.end(), "--rate");
      *(it + 1) = "500";
      return FakeBehaviour{{}, CommandResult{0, std::nullopt, wbload_json(other, 2), "", false}, false};
    };
    auto runner = b.runner();
    REQUIRE_THROWS_WITH(runner.run(threads(2), 100, 10, 0), Catch::Contains("result.offered_rate"));
  }
  CHECK(b.log->stopped.front() == "server");
  CHECK(b.log->running == 0);
}

TEST_CASE("fake testbed: a SUT that exits before its ready line, or never prints it, fails clearly") {
  Bench b;
  SECTION("exits") {
    b.script.sut =
        FakeBehaviour{{"starting"}, CommandResult{1, std::nullopt, "", "bad flag --threads", false}, false};
    auto runner = b.runner();
    REQUIRE_THROWS_WITH(runner.run(threads(2), 100, 10, 0),
                        Catch::Contains("SUT on s exited before it was ready (exit 1)") &&
                            Catch::Contains("bad flag --threads"));
  }
  SECTION("silent") {
    b.script.sut = FakeBehaviour{{"starting"}, std::nullopt, true};
    auto runner = b.runner();
    REQUIRE_THROWS_WITH(runner.run(threads(2), 100, 10, 0),
                        Catch::Contains("SUT on s was not ready within 15 s") &&
                            Catch::Contains("no line starting with 'ready'"));
  }
  CHECK(started(*b.log, "g1").empty());  // no load on a SUT that is not up
  CHECK(b.log->running == 0);
}

TEST_CASE("fake testbed: a connection dropped mid-search fails the trial and leaves nothing running") {
  Bench b;
  auto runner = b.runner();
  runner.run(threads(2), 100, 10, 0);
  *b.dropped.at("g2") = true;
  REQUIRE_THROWS_WITH(runner.run(threads(2), 100, 10, 1), Catch::Contains("fake@g2: connection lost"));
  CHECK(b.log->running == 0);  // g1's wbload and the SUT were stopped or done
  CHECK(std::count(b.log->stopped.begin(), b.log->stopped.end(), "server") == 1);
}

TEST_CASE("fake testbed: [[sut.files]] are filled in and written before the setup commands run") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("wb_sut_files_{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "server.conf") << "server {\n  listen {sut_address}:{port};\n  threads {threads};\n"
                                        "  literal {{port}} and { braces }\n}\n";
  std::string text = kConfig;
  text.replace(text.find("port = 7000\n"), 12,
               fmt::format("port = 7000\n\n[[sut.files]]\ntemplate = \"{}\"\npath = \"/srv/wb-{{port}}/"
                           "server.conf\"\n",
                           (dir / "server.conf").string()));
  Bench b;
  b.config = Config::parse(text, (dir / "fake.toml").string());
  auto runner = b.runner();
  runner.run(threads(4), 100, 10, 0);
  REQUIRE(b.log->uploads.size() == 1);
  CHECK(b.log->uploads[0].host == "s");
  CHECK(b.log->uploads[0].path == "/srv/wb-7000/server.conf");
  CHECK(b.log->uploads[0].content ==
        "server {\n  listen 127.0.0.1:7000;\n  threads 4;\n  literal {port} and { braces }\n}\n");
  // Its folder is made first, then the setup command runs, then the SUT starts.
  REQUIRE(b.log->runs.size() == 2);
  CHECK(b.log->runs[0].spec.argv == std::vector<std::string>{"mkdir", "-p", "/srv/wb-7000"});
  CHECK(b.log->runs[1].spec.argv.front() == "prepare");
  std::filesystem::remove_all(dir);
}

TEST_CASE("[[sut.files]]: an unknown placeholder or an unreadable template is one line naming the key") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("wb_sut_files_bad_{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "server.conf") << "a\nlisten {prot};\n";
  std::ofstream(dir / "good.conf") << "listen {port};\n";
  auto with_file = [&](const std::string& file, const std::string& path) {
    std::string text = kConfig;
    text.replace(text.find("port = 7000\n"), 12,
                 fmt::format("port = 7000\n\n[[sut.files]]\ntemplate = \"{}\"\npath = \"{}\"\n", file, path));
    return parse_testbed(Config::parse(text, (dir / "fake.toml").string()));
  };
  CHECK_THROWS_WITH(with_file("server.conf", "/srv/x.conf"),
                    Catch::Contains("fake.toml:") && Catch::Contains(":sut.files[0].template: ") &&
                        Catch::Contains("line 2: {prot} has no value"));
  CHECK_THROWS_WITH(with_file("missing.conf", "/srv/x.conf"),
                    Catch::Contains(":sut.files[0].template: cannot read"));
  CHECK_THROWS_WITH(with_file("good.conf", "srv/{port}.conf"),
                    Catch::Contains(":sut.files[0].path: must be an absolute path"));
  // One line, with the file and key once.
  try {
    with_file("good.conf", "srv/{port}.conf");
    FAIL("a relative path was accepted");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("fake.toml:") == m.rfind("fake.toml:"));
    CHECK(m.find('\n') == std::string::npos);
  }
  CHECK_THROWS_WITH(with_file("good.conf", "/srv/{prot}.conf"),
                    Catch::Contains(":sut.files[0].path: ") && Catch::Contains("{prot} has no value"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("fake testbed: [workload] cpus runs each generator under taskset, per sample when a template") {
  auto with_cpus = [](const std::string& cpus) {
    std::string text = kConfig;
    text.replace(text.find("deadline_slack_s = 1\n"), 21,
                 fmt::format("deadline_slack_s = 1\ncpus = \"{}\"\n", cpus));
    return text;
  };
  Bench b;
  b.config = Config::parse(with_cpus("{threads}"), "fake.toml");
  auto runner = b.runner();
  runner.run(threads(2), 100, 10, 0);
  runner.run(threads(4), 100, 10, 1);
  for (const char* g : {"g1", "g2"}) {
    const auto argv = started(*b.log, g);
    REQUIRE(argv.size() == 2);
    CHECK(argv[0].rfind("taskset --cpu-list 2 /opt/wb/wbload --protocol rpc", 0) == 0);
    CHECK(argv[1].rfind("taskset --cpu-list 4 /opt/wb/wbload", 0) == 0);
  }
  CHECK(started(*b.log, "s") ==
        std::vector<std::string>{"server --threads 2 --port 7000", "server --threads 4 --port 7000"});
  // A fixed list that taskset would refuse is the config's error, with its line and key.
  CHECK_THROWS_WITH(
      parse_testbed(Config::parse(with_cpus("1;2"), "fake.toml")),
      Catch::Contains("fake.toml:") && Catch::Contains(":workload.cpus: '1;2' is not a CPU list"));
  CHECK_NOTHROW(parse_testbed(Config::parse(with_cpus("0-1,3"), "fake.toml")));
  // A template is checked at every level of the factors it names, before any trial.
  CHECK_THROWS_WITH(parse_testbed(Config::parse(with_cpus("0-{threads}x"), "fake.toml")),
                    Catch::Contains(":workload.cpus: threads=2: '0-2x' is not a CPU list"));
}
