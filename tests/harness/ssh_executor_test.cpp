// SshExecutor against a real OpenSSH sshd on a loopback port (SshdFixture): session reuse,
// host-key checks, quoting, remote process groups, reconnects, SFTP
// (the shells started ahead: ssh_waiting_shell_test.cpp).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "harness/process_identity.hpp"
#include "harness/shell_quote.hpp"
#include "harness/ssh_executor.hpp"
#include "process_table.hpp"
#include "ssh_test_options.hpp"
#include "sshd_fixture.hpp"
#include "tests/sut/child_process.hpp"

using namespace std::chrono_literals;
using wb::CommandSpec;
using wb::test::kProcessTree;
using wb::test::marked_sh;
using wb::test::options_for;
using wb::test::sh;
using wb::test::SshdFixture;

namespace {

// The error make_ssh_executor throws for `o`; the test fails with `connected` if it connects.
std::string connect_error(const wb::SshOptions& o, const char* connected) {
  try {
    wb::make_ssh_executor(o);
  } catch (const wb::Error& e) {
    return e.what();
  }
  FAIL(connected);
  return "";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("ssh: exit status, stdout and stderr come through apart") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  CHECK_THAT(ex->describe(), Catch::Contains(std::to_string(sshd.port())));
  wb::test::check_run_keeps_streams_apart(*ex);

  const auto killed = ex->run(sh("kill -TERM $$"));
  CHECK(killed.exit_signal == std::optional<std::string>("TERM"));
  CHECK(killed.exit_status == -1);
  CHECK(killed.err.empty());
  const auto core = ex->run(sh("echo partial; kill -KILL $$"));
  CHECK(core.exit_signal == std::optional<std::string>("KILL"));
  CHECK(core.out == "partial\n");
  CHECK(ex->run(sh("exit 15")).exit_status == 15);  // a plain exit code stays one

  CommandSpec spec = sh("printf '%s|%s' \"$WB_A\" \"$(pwd)\"");
  spec.env = {{"WB_A", "a b"}};
  spec.cwd = "/usr";
  CHECK(ex->run(spec).out == "a b|/usr");

  const auto missing = ex->run({{"wb-no-such-program-xyz"}, {}, {}, 10s});
  CHECK(missing.exit_status == 127);
  CHECK_THAT(missing.err, Catch::Contains("wb-no-such-program-xyz"));
}

TEST_CASE("ssh: 20 commands reuse one authenticated session") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  REQUIRE(ex->run({{"echo", "0"}, {}, {}, 10s}).out == "0\n");
  const auto connections_before = sshd.count_log("Connection from");
  CHECK(sshd.open_sessions() == 1);
  for (int i = 1; i < 20; ++i) {
    const auto r = ex->run({{"echo", std::to_string(i)}, {}, {}, 10s});
    REQUIRE(r.out == std::to_string(i) + "\n");
  }
  CHECK(ex->connections() == 1);
  // The server agrees: one connection, one authentication, one session process throughout.
  CHECK(sshd.count_log("Accepted publickey") == 1);
  CHECK(sshd.count_log("Connection from") == connections_before);
  CHECK(sshd.open_sessions() == 1);
}

TEST_CASE("ssh: an unknown host key is refused with the fix in the message") {
  SshdFixture sshd;
  auto o = options_for(sshd);
  o.known_hosts_file = sshd.write_file("empty_known_hosts", {});
  const std::string msg = connect_error(o, "connected to a host whose key is not known");
  CHECK_THAT(msg, Catch::Contains("unknown host key"));
  CHECK_THAT(msg, Catch::Contains("SHA256:"));
  CHECK_THAT(msg, Catch::Contains("ssh-ed25519"));
  CHECK_THAT(msg, Catch::Contains("[127.0.0.1]:" + std::to_string(sshd.port())));
  CHECK_THAT(msg, Catch::Contains("ssh-keyscan -p " + std::to_string(sshd.port()) + " 127.0.0.1 >> " +
                                  o.known_hosts_file));
  CHECK_THAT(msg, Catch::Contains("accept-new"));
  CHECK(sshd.count_log("Accepted publickey") == 0);
  CHECK(slurp(o.known_hosts_file).empty());  // strict mode never writes
}

TEST_CASE("ssh: a changed host key is refused, even with accept-new") {
  SshdFixture sshd;
  auto o = options_for(sshd);
  o.known_hosts_file = sshd.write_file("changed_known_hosts", {sshd.foreign_host_key_line()});
  const std::string before = slurp(o.known_hosts_file);
  for (bool accept_new : {false, true}) {
    o.accept_new = accept_new;
    const std::string msg = connect_error(o, "connected to a host whose key changed");
    CHECK_THAT(msg, Catch::Contains("CHANGED"));
    CHECK_THAT(msg, Catch::Contains("SHA256:"));
    CHECK_THAT(msg, Catch::Contains("ssh-keygen -R '[127.0.0.1]:" + std::to_string(sshd.port()) + "'"));
    CHECK_THAT(msg, Catch::Contains(o.known_hosts_file));
  }
  CHECK(slurp(o.known_hosts_file) == before);
  CHECK(sshd.count_log("Accepted publickey") == 0);
}

TEST_CASE("ssh: accept-new adds an unknown key, which strict mode then accepts") {
  SshdFixture sshd;
  auto o = options_for(sshd);
  o.known_hosts_file = sshd.dir() + "/new_known_hosts";  // does not exist yet
  o.accept_new = true;
  {
    auto ex = wb::make_ssh_executor(o);
    CHECK(ex->run({{"echo", "hi"}, {}, {}, 10s}).out == "hi\n");
  }
  const std::string written = slurp(o.known_hosts_file);
  const std::string key_blob = sshd.host_key_line().substr(sshd.host_key_line().rfind(' ') + 1);
  CHECK_THAT(written, Catch::Contains(key_blob));
  o.accept_new = false;
  auto strict = wb::make_ssh_executor(o);
  CHECK(strict->run({{"echo", "again"}, {}, {}, 10s}).out == "again\n");
}

TEST_CASE("ssh: hostile values reach the remote program as one literal argument") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  const std::string work = sshd.dir() + "/injection";
  std::filesystem::create_directories(work);
  const std::vector<std::string> values = {"$(touch pwned)",
                                           "'; rm -rf ~ #",
                                           "a\nb; touch pwned",
                                           "`touch pwned`",
                                           "\"; touch pwned; \"",
                                           "it's",
                                           "x'y\"z",
                                           "$HOME",
                                           "*",
                                           "-n",
                                           "",
                                           "a  b",
                                           ">pwned",
                                           "| touch pwned",
                                           "\\'; touch pwned"};
  for (const auto& v : values) {
    INFO("value: " << v);
    // Directly as argv, through a command template, and as an environment value.
    CommandSpec spec{{"printf", "%s\\0", v}, {{"WB_V", v}}, work, 10s};
    auto r = ex->run(spec);
    REQUIRE(r.exit_status == 0);
    CHECK(r.out == v + std::string(1, '\0'));
    const auto argv = wb::expand_command_template("printf %s|%s {v} {v}", {{"v", v}});
    r = ex->run({argv, {}, work, 10s});
    CHECK(r.out == fmt::format("{}|{}", v, v));
    r = ex->run({{"/bin/sh", "-c", "printf %s \"$WB_V\""}, {{"WB_V", v}}, work, 10s});
    CHECK(r.out == v);
  }
  CHECK(std::filesystem::is_empty(work));
  CHECK(std::filesystem::exists(sshd.dir() + "/home"));
  CHECK_FALSE(std::filesystem::exists(sshd.dir() + "/home/pwned"));
}

TEST_CASE("ssh: a deadline kills the whole remote process group") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  const std::string marker = wb::test::make_marker();
  wb::test::check_run_past_deadline(*ex, marker, 700ms);
  CHECK(wb::test::survivors_after(marker).empty());
  CHECK(ex->run({{"echo", "next"}, {}, {}, 10s}).out == "next\n");
  CHECK(ex->connections() == 1);
}

TEST_CASE("ssh: a deadline also holds for a remote command that closed its output") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  const std::string marker = wb::test::make_marker();
  CommandSpec spec = marked_sh("echo bye; exec >/dev/null 2>&1; sleep 1000", marker, 500ms);
  const auto r = ex->run(spec);
  CHECK(r.timed_out);
  CHECK(r.out == "bye\n");
  CHECK(wb::test::survivors_after(marker).empty());
}

TEST_CASE("ssh: a started remote process is read line by line and stop() kills its group") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  const std::string marker = wb::test::make_marker();
  // 300 kB before "ready": more than a channel window, so it must be drained meanwhile.
  std::string script = "head -c 300000 /dev/zero | tr '\\0' x; echo; echo ready; ";
  script += kProcessTree;
  CommandSpec spec = marked_sh(script, marker, 0ms);
  auto p = ex->start(spec);
  CHECK_THAT(p->describe(), Catch::Contains("pgid"));
  CHECK(p->read_line(10s)->size() == 300000);
  CHECK(p->read_line(10s) == std::optional<std::string>("ready"));
  CHECK(p->read_line(10s) == std::optional<std::string>("started"));
  // Other commands run on the same session while it lives.
  CHECK(ex->run({{"echo", "meanwhile"}, {}, {}, 10s}).out == "meanwhile\n");
  CHECK_FALSE(p->wait(100ms));
  REQUIRE_FALSE(wb::test::pids_with_marker(marker).empty());
  const auto r = p->stop(300ms);
  CHECK(r.exit_signal == std::optional<std::string>("TERM"));
  CHECK(wb::test::survivors_after(marker).empty());
  p.reset();
  CHECK(ex->connections() == 1);

  wb::test::check_wait_returns_exit(*ex, 5);
}

TEST_CASE("ssh: destroying a started remote process stops its group") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  const std::string marker = wb::test::make_marker();
  {
    auto p = ex->start(marked_sh(kProcessTree, marker, 0ms));
    CHECK(p->read_line(10s) == std::optional<std::string>("started"));
  }
  CHECK(wb::test::survivors_after(marker).empty());
}

TEST_CASE("ssh: killing the sshd child mid-command fails clearly, then the executor reconnects") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  REQUIRE(ex->run({{"true"}, {}, {}, 10s}).ok());
  const std::string marker = wb::test::make_marker();
  CommandSpec spec = marked_sh("echo started; sleep 30; echo never", marker, 20s);
  std::thread killer([&] {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (wb::test::pids_with_marker(marker).empty() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(10ms);
    }
    std::this_thread::sleep_for(100ms);
    sshd.kill_connections();
  });
  try {
    ex->run(spec);
    FAIL("the command survived its connection");
  } catch (const wb::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("connection lost"));
    CHECK_THAT(e.what(), Catch::Contains("sleep 30"));
    CHECK_THAT(e.what(), Catch::Contains(std::to_string(sshd.port())));
  }
  killer.join();
  const auto r = ex->run({{"echo", "back"}, {}, {}, 10s});
  CHECK(r.out == "back\n");
  CHECK(ex->connections() == 2);
  // The reconnect killed the group the lost connection left behind.
  CHECK(wb::test::survivors_after(marker).empty());
}

TEST_CASE("ssh: a connection that died while idle is re-established for the next command") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  REQUIRE(ex->run({{"true"}, {}, {}, 10s}).ok());
  sshd.kill_connections();
  std::this_thread::sleep_for(100ms);
  CHECK(ex->run({{"echo", "ok"}, {}, {}, 10s}).out == "ok\n");
  CHECK(ex->connections() == 2);
}

TEST_CASE("ssh: a host that does not answer fails after the reconnect attempts") {
  SshdFixture sshd;
  auto o = options_for(sshd);
  o.port = 1;  // nothing listens there
  o.reconnect_attempts = 2;
  o.reconnect_backoff = 10ms;
  CHECK_THROWS_WITH(wb::make_ssh_executor(o), Catch::Contains("cannot connect after 2 attempts"));
}

TEST_CASE("ssh: a key the server does not know is refused with a hint") {
  SshdFixture sshd;
  auto o = options_for(sshd);
  o.identity_file = sshd.dir() + "/host_key";  // a valid key, but not authorized
  CHECK_THROWS_WITH(wb::make_ssh_executor(o),
                    Catch::Contains("refused") && Catch::Contains("authorized_keys"));
}

TEST_CASE("ssh: SFTP upload, and ensure_binary uploads only when --version differs") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  const std::string local = sshd.dir() + "/tool";
  const std::string remote = sshd.dir() + "/remote/bin/tool";
  const auto write_tool = [&](const std::string& version) {
    std::ofstream(local) << "#!/bin/sh\necho \"tool " << version << "\"\n";
    std::filesystem::permissions(local, std::filesystem::perms(0755));
  };
  write_tool("1.0");
  CHECK(wb::ensure_binary(*ex, local, remote));  // missing: uploaded
  CHECK(ex->run({{remote, "--version"}, {}, {}, 10s}).out == "tool 1.0\n");
  const auto mtime = std::filesystem::last_write_time(remote);
  CHECK_FALSE(wb::ensure_binary(*ex, local, remote));  // same version: left alone
  CHECK(std::filesystem::last_write_time(remote) == mtime);
  write_tool("1.1");
  CHECK(wb::ensure_binary(*ex, local, remote));  // differs: replaced
  CHECK(ex->run({{remote, "--version"}, {}, {}, 10s}).out == "tool 1.1\n");
  CHECK((std::filesystem::status(remote).permissions() & std::filesystem::perms::owner_exec) !=
        std::filesystem::perms::none);

  // A larger binary file arrives byte for byte.
  std::string blob(1 << 20, '\0');
  for (std::size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<char>((i * 7919) % 251);
  std::ofstream(sshd.dir() + "/blob", std::ios::binary) << blob;
  ex->upload(sshd.dir() + "/blob", sshd.dir() + "/remote/blob", 0640);
  CHECK(slurp(sshd.dir() + "/remote/blob") == blob);
  CHECK_THROWS_AS(ex->upload(sshd.dir() + "/missing", sshd.dir() + "/remote/x", 0644), wb::Error);
  CHECK(ex->connections() == 1);
}

TEST_CASE("ssh: a started process whose connection drops fails clearly — its group ends with the channel") {
  SshdFixture sshd;
  auto ex = wb::make_ssh_executor(options_for(sshd));
  const std::string marker = wb::test::make_marker();
  auto p = ex->start(marked_sh(kProcessTree, marker, 0ms));
  REQUIRE(p->read_line(10s) == std::optional<std::string>("started"));
  sshd.kill_connections();
  CHECK_THROWS_WITH(p->read_line(10s), Catch::Contains("connection lost"));
  // The guard in the group ended it when the channel closed, before any reconnect (the
  // SIGTERM-proof grandchild after the 300 ms kill grace).
  CHECK(wb::test::survivors_after(marker, 5s).empty());
  CHECK(ex->connections() == 1);
  CHECK(ex->run({{"echo", "back"}, {}, {}, 10s}).out == "back\n");
  CHECK(ex->connections() == 2);
  CHECK(wb::test::survivors_after(marker).empty());
  p.reset();  // destroying a lost process neither throws nor touches the freed channel
  CHECK(ex->run({{"echo", "still"}, {}, {}, 10s}).out == "still\n");
}

TEST_CASE("ssh: a command quieter than the keepalive interval runs to completion") {
  SshdFixture sshd;
  auto o = options_for(sshd);
  o.keepalive = std::chrono::seconds(1);
  auto ex = wb::make_ssh_executor(o);
  const auto r = ex->run(sh("sleep 2.5; echo done", 20s));
  CHECK(r.exit_status == 0);
  CHECK(r.out == "done\n");
  CHECK(ex->connections() == 1);
  CHECK(sshd.count_log("keepalive@openssh.com") >= 1);  // the server saw the probes
}

TEST_CASE("ssh: without a key file the SSH agent authenticates") {
  SshdFixture sshd;
  auto local = wb::make_local_executor();
  const std::string sock = sshd.dir() + "/agent.sock";
  auto agent = local->start({{"ssh-agent", "-D", "-a", sock}, {}, {}, 60s});
  for (int i = 0; i < 500 && !std::filesystem::exists(sock); ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(std::filesystem::exists(sock));
  const auto add = local->run({{"ssh-add", sshd.client_key()}, {{"SSH_AUTH_SOCK", sock}}, {}, 10s});
  REQUIRE(add.exit_status == 0);

  auto o = options_for(sshd);
  o.identity_file.clear();
  ::setenv("SSH_AUTH_SOCK", sock.c_str(), 1);
  auto ex = wb::make_ssh_executor(o);
  CHECK(ex->run({{"echo", "agent"}, {}, {}, 10s}).out == "agent\n");
  ex.reset();

  // An agent without the key is refused with a hint that names the agent.
  REQUIRE(local->run({{"ssh-add", "-D"}, {{"SSH_AUTH_SOCK", sock}}, {}, 10s}).exit_status == 0);
  CHECK_THROWS_WITH(wb::make_ssh_executor(o), Catch::Contains("SSH agent"));
  ::unsetenv("SSH_AUTH_SOCK");
}

TEST_CASE(
    "ssh: with the server's sessions nearly used up, the channel opened ahead is refused and nothing fails") {
  // The executor opens the next command's channel when a command (or a start) ends. With
  // MaxSessions 3 and two started processes that spare is the server's last session, or one too
  // many while the server has not yet let go of the last command's: every command must still run.
  // sshd frees a closed session lazily, so a channel opened right after another one closed at
  // exactly the limit may be refused, with or without the spare: the executor retries a refused
  // open briefly. (Upload on the spare channel: the SFTP test.)
  SshdFixture sshd({"MaxSessions 3"});
  auto ex = wb::make_ssh_executor(options_for(sshd));
  auto a = ex->start(sh("echo up; exec sleep 60"));
  auto b = ex->start(sh("echo up; exec sleep 61"));
  CHECK(a->read_line(10s) == "up");
  CHECK(b->read_line(10s) == "up");
  // A third process takes the last session, so the spare opened after its start is refused
  // whatever the timing (the refusal under test). It ends by itself (stopping it would need a
  // session for the kill), which frees its session again.
  auto c = ex->start(sh("echo up; exec sleep 1"));
  CHECK(c->read_line(10s) == "up");
  auto ended = c->wait(10s);
  REQUIRE(ended);
  CHECK(ended->ok());
  c.reset();  // closes its channel: the server may now free the session (lazily)
  for (int i = 0; i < 4; ++i) CHECK(ex->run(sh(fmt::format("echo {}", i))).out == fmt::format("{}\n", i));
  CHECK(sshd.count_log("no more sessions") >= 1);
  CHECK(ex->connections() == 1);
}

TEST_CASE("ssh: a started group dies with a SIGKILLed controller, within the kill grace") {
  SshdFixture sshd;
  const std::string marker = wb::test::make_marker();
  // guard_probe (a stand-in controller) starts the tree over SSH with the marker in its
  // environment, prints the group and waits to be killed.
  wb::test::ChildProcess probe({std::string(WB_BINARY_DIR) + "/tests/harness/guard_probe", "ssh", sshd.host(),
                                std::to_string(sshd.port()), sshd.user(), sshd.client_key(),
                                sshd.known_hosts(), "start", "env", "WB_TEST_MARKER=" + marker, "/bin/sh",
                                "-c", kProcessTree});
  const auto line = probe.read_stdout_line(20s);
  if (!line) {
    probe.send_signal(SIGKILL);
    probe.wait_exit(5s);
    FAIL("guard_probe said nothing: " << probe.drain_stderr());
  }
  std::istringstream words(*line);
  std::string started;
  long pgid = 0;
  unsigned long long ticks = 0;
  REQUIRE(words >> started >> pgid >> ticks);
  CHECK(started == "started");
  // The remote wrapper reported the leader's real start time (the "remote" host is this one).
  CHECK(wb::process_start_ticks(static_cast<pid_t>(pgid)) == std::optional<std::uint64_t>(ticks));
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (wb::test::pids_named("sleep", marker).size() < 3 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  REQUIRE(wb::test::pids_named("sleep", marker).size() == 3);

  const auto killed = std::chrono::steady_clock::now();
  probe.send_signal(SIGKILL);
  REQUIRE(probe.wait_exit(5s));
  CHECK(wb::test::survivors_after(marker, 5s).empty());
  const auto took = std::chrono::steady_clock::now() - killed;
  CHECK(took < 3s);  // SIGTERM, then SIGKILL of the SIGTERM-proof one after the probe's 300 ms grace
  std::printf("ssh start: gone %lld ms after the SIGKILL\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
}
