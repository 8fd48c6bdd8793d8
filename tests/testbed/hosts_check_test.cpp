// `workbench hosts check` against a real OpenSSH sshd (the fixture) and the shipped configs: a
// working SSH host, an unknown host key, a key the server refuses, a local program that cannot run.
// The SSH cases run configs/demo-ssh.toml itself, with only its SSH settings pointed at the fixture.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sshd_fixture.hpp"
#include "testbed_support.hpp"
#include "tests/support/workbench_cli.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using wb::test::kWorkbench;
const std::string kConfigs = std::string(WB_SOURCE_DIR) + "/configs";

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  INFO("configs/demo-ssh.toml no longer has: " << from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
}

// configs/demo-ssh.toml with its [[hosts]] SSH settings swapped for the fixture's (the rest as
// shipped), written into `dir`.
std::string demo_ssh_copy(const wb::test::SshdFixture& sshd, const fs::path& dir, const std::string& identity,
                          const std::string& known_hosts) {
  std::string text = read_text(kConfigs + "/demo-ssh.toml");
  replace_once(text, "port = 22\n", fmt::format("port = {}\n", sshd.port()));
  replace_once(text, "user = \"root\"", fmt::format("user = \"{}\"", sshd.user()));
  replace_once(text, "identity = \"/root/.ssh/id_ed25519\"", fmt::format("identity = \"{}\"", identity));
  replace_once(text, "known_hosts = \"/root/.ssh/known_hosts\"",
               fmt::format("known_hosts = \"{}\"", known_hosts));
  replace_once(text, "workdir = \"/tmp/workbench-demo\"",
               fmt::format("workdir = \"{}\"", (dir / "work").string()));
  fs::path p = dir / "demo-ssh.toml";
  std::ofstream(p) << text;
  return p.string();
}

// The line of `out` about host `name` ("name (address) [roles]: ...").
std::string host_line(const std::string& out, const std::string& name) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + " (", 0) == 0) return line;
  }
  return "";
}

// `hosts check` on `config` that must fail on the host "remote": the run, and that host's line,
// which starts with its FAILED verdict.
std::pair<wb::test::RunResult, std::string> failed_remote_check(const wb::test::SshdFixture& sshd,
                                                                const std::string& config) {
  auto r = wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", config}, 60s);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  std::string line = host_line(r.out, "remote");
  CHECK_THAT(line,
             Catch::StartsWith(fmt::format("remote (127.0.0.1:{}) [sut,generator]: FAILED: ", sshd.port())));
  return {r, line};
}

}  // namespace

TEST_CASE("hosts check on configs/demo-ssh.toml reaches the SSH host and reports the programs") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("hosts_demo");
  std::string config = demo_ssh_copy(sshd, dir, sshd.client_key(), sshd.known_hosts());
  auto r = wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", config}, 60s);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(host_line(r.out, "remote") ==
        fmt::format("remote (127.0.0.1:{}) [sut,generator]: connected", sshd.port()));
  CHECK_THAT(r.out, Catch::Contains("workbench uploads it before the first trial"));
  CHECK_THAT(r.out, Catch::EndsWith("all hosts ok\n"));

  auto j = wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", config, "--json"}, 60s);
  REQUIRE(j.exit_code == 0);
  auto out = nlohmann::json::parse(j.out);
  CHECK(out["ok"] == true);
  REQUIRE(out["hosts"].size() == 1);
  CHECK(out["hosts"][0]["connected"] == true);
  CHECK(out["hosts"][0]["wbload"]["path"] == (dir / "work" / "wbload").string());
  fs::remove_all(dir);
}

TEST_CASE("hosts check: an unknown host key (strict known_hosts) names the host and the fix, exit 1") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("hosts_unknown_key");
  const std::string empty = sshd.write_file("empty_known_hosts", {});
  std::string config = demo_ssh_copy(sshd, dir, sshd.client_key(), empty);
  auto [r, line] = failed_remote_check(sshd, config);
  INFO(r.out << r.err);
  CHECK_THAT(line, Catch::Contains("unknown host key"));
  CHECK_THAT(line, Catch::Contains(fmt::format("ssh-keyscan -p {} 127.0.0.1 >> {}", sshd.port(), empty)));
  CHECK_THAT(line, Catch::Contains("accept-new"));
  CHECK_THAT(r.out, Catch::EndsWith("some hosts have problems\n"));
  CHECK(read_text(empty).empty());  // strict: nothing was recorded
  CHECK(sshd.count_log("Accepted publickey") == 0);

  auto j = wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", config, "--json"}, 60s);
  CHECK(j.exit_code == 1);
  auto out = nlohmann::json::parse(j.out);
  CHECK(out["ok"] == false);
  CHECK(out["hosts"][0]["connected"] == false);
  CHECK_THAT(out["hosts"][0]["error"].get<std::string>(), Catch::Contains("unknown host key"));
  fs::remove_all(dir);
}

TEST_CASE("hosts check: a key the server refuses names the host, the key and the fix, exit 1") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("hosts_wrong_key");
  const std::string wrong = (dir / "wrong_key").string();
  auto keygen =
      wb::test::run_to_exit({"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", wrong}, 30s);
  REQUIRE(keygen.exit_code == 0);
  std::string config = demo_ssh_copy(sshd, dir, wrong, sshd.known_hosts());
  auto [r, line] = failed_remote_check(sshd, config);
  INFO(r.out << r.err);
  CHECK_THAT(line, Catch::Contains("the server refused the key " + wrong));
  CHECK_THAT(line, Catch::Contains("authorized_keys"));
  CHECK_THAT(r.out, Catch::EndsWith("some hosts have problems\n"));
  CHECK(sshd.count_log("Accepted publickey") == 0);
  fs::remove_all(dir);
}

TEST_CASE("hosts check on configs/demo.toml: a local generator program that cannot run fails, exit 1") {
  const std::string config = kConfigs + "/demo.toml";
  auto ok = wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", config}, 60s);
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(host_line(ok.out, "local") == "local (local) [sut,generator]: connected");

  // WB_BIN_DIR names where workbench takes its programs from: there, wbload is not executable.
  fs::path bin = wb::test::fresh_dir("hosts_bin");
  std::ofstream(bin / "wbload") << "not a program\n";
  fs::permissions(bin / "wbload", fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink(std::string(WB_BINARY_DIR) + "/sut/refserver", bin / "refserver");
  auto r = wb::test::run_to_exit(
      {"/usr/bin/env", "WB_BIN_DIR=" + bin.string(), kWorkbench, "hosts", "check", "--config", config}, 60s);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(host_line(r.out, "local") == "local (local) [sut,generator]: connected");
  std::string wbload_line;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.find("  wbload ") == 0) wbload_line = line;
  }
  CHECK_THAT(wbload_line, Catch::Contains((bin / "wbload").string()));
  CHECK_THAT(wbload_line, Catch::Contains("exit 126"));
  CHECK_THAT(wbload_line, Catch::Contains("set WB_BIN_DIR to a folder with a working wbload"));
  CHECK_THAT(r.out, Catch::EndsWith("some hosts have problems\n"));
  fs::remove_all(bin);
}

TEST_CASE(
    "hosts check: shell_ahead = false still reaches the SSH host, and a bad value is named with exit 2") {
  wb::test::SshdFixture sshd;
  fs::path dir = wb::test::fresh_dir("hosts_shell_ahead");
  std::string config = demo_ssh_copy(sshd, dir, sshd.client_key(), sshd.known_hosts());
  std::string text = read_text(config);
  replace_once(text, "\nshell_ahead = true\n", "\nshell_ahead = false\n");
  std::ofstream(config) << text;
  auto r = wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", config}, 60s);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(host_line(r.out, "remote") ==
        fmt::format("remote (127.0.0.1:{}) [sut,generator]: connected", sshd.port()));

  // The line of the key in the file: the error names it.
  const auto line =
      1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find("\nshell_ahead = false\n") + 1),
                     '\n');
  replace_once(text, "\nshell_ahead = false\n", "\nshell_ahead = \"no\"\n");
  std::ofstream(config) << text;
  auto bad = wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", config}, 60s);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains(fmt::format("{}:{}:", config, line)) &&
                          Catch::Contains("shell_ahead: must be true or false"));
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  fs::remove_all(dir);
}

TEST_CASE("hosts check names the [workload] generator's program and version, or that it is missing") {
  auto pg =
      wb::test::run_to_exit({kWorkbench, "hosts", "check", "--config", kConfigs + "/postgres.toml"}, 60s);
  INFO(pg.out << pg.err);
  CHECK(pg.exit_code == 0);
  CHECK_THAT(pg.out, Catch::Contains("  pgbench    /usr/bin/pgbench  pgbench (PostgreSQL) 15."));

  fs::path dir = wb::test::fresh_dir("hosts_generator");
  std::string text = read_text(kConfigs + "/postgres.toml");
  replace_once(text, "generator = \"pgbench\"\n",
               "generator = \"pgbench\"\nprogram = \"wb-no-such-pgbench\"\n");
  std::ofstream(dir / "postgres.toml") << text;
  auto r = wb::test::run_to_exit(
      {kWorkbench, "hosts", "check", "--config", (dir / "postgres.toml").string(), "--json"}, 60s);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["ok"] == false);
  CHECK(j["hosts"][0]["pgbench"]["path"] == "wb-no-such-pgbench");
  CHECK(j["hosts"][0]["pgbench"]["problem"] == "missing");
  CHECK_THAT(j["hosts"][0]["pgbench"]["note"].get<std::string>(), Catch::Contains("[workload] program"));
  fs::remove_all(dir);
}
