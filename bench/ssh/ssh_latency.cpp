// Per-command latency of remote commands on loopback:
//   (a) SshExecutor: one libssh session reused, one channel per command (workbench's way), whose
//       shell was started ahead (remote_command.hpp waiting_shell)
//   (b) the `ssh` CLI with a new connection per command
//   (c) the `ssh` CLI multiplexed over a ControlMaster/ControlPersist connection
//   (d) libssh with a new session per command (what reuse saves)
//   (e) the floor: raw libssh on one reused session running the shell string "echo x" (a shell
//       builtin, no wrapper, no exec) — how the 2.4-2.9 ms were measured. (a) and (e)
//   (f) raw libssh as (e) but running the program: "exec /bin/echo x" — what any argv costs.
//   (g) SshExecutor with shell_ahead = false: only the channel opened ahead (before 2026-11-25).
//       (a), (e), (f) and (g) alternate command by command so they see the same machine load;
//       so each executor's next shell has had the other modes' time to start.
//   (h) SshExecutor as (a), its commands back to back: the next shell starts while the command
//       runs, and the command waits for what is left of its start.
// against a private sshd (the test fixture) on 127.0.0.1. Prints median and p90 per command,
// the ratios to (a), and the goal: (a) median <= 3 ms.
//
// Usage: bench_ssh [COUNT]   (COUNT commands per mode after 3 warm-up commands; default 30)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <libssh/libssh.h>

#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "harness/ssh_executor.hpp"
#include "ssh_test_options.hpp"
#include "sshd_fixture.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Figures {
  std::string mode;
  std::size_t count = 0;
  double median_ms = 0, p90_ms = 0;
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p * static_cast<double>(v.size()))));
  return v[std::min(rank, v.size()) - 1];
}

// Times `count` calls of each of `modes` after `warmup` untimed ones, alternating between the
// modes call by call; each function must throw on failure.
std::vector<Figures> measure(const std::vector<std::pair<std::string, std::function<void()>>>& modes,
                             int warmup, int count) {
  for (int i = 0; i < warmup; ++i) {
    for (const auto& m : modes) m.second();
  }
  std::vector<std::vector<double>> ms(modes.size());
  for (int i = 0; i < count; ++i) {
    for (std::size_t j = 0; j < modes.size(); ++j) {
      const auto t0 = Clock::now();
      modes[j].second();
      ms[j].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  }
  std::vector<Figures> out;
  for (std::size_t j = 0; j < modes.size(); ++j) {
    out.push_back({modes[j].first, ms[j].size(), percentile(ms[j], 0.5), percentile(ms[j], 0.9)});
  }
  return out;
}

Figures measure(const std::string& mode, int warmup, int count, const std::function<void()>& one) {
  return measure({{mode, one}}, warmup, count).front();
}

// The floor (e): a bare libssh session, one channel per shell-string command.
class RawLibssh {
 public:
  RawLibssh(const wb::test::SshdFixture& sshd) : s_(ssh_new()) {
    const int port = sshd.port(), nodelay = 1;
    const bool process_config = false;
    ssh_options_set(s_, SSH_OPTIONS_HOST, sshd.host().c_str());
    ssh_options_set(s_, SSH_OPTIONS_PORT, &port);
    ssh_options_set(s_, SSH_OPTIONS_USER, sshd.user().c_str());
    ssh_options_set(s_, SSH_OPTIONS_NODELAY, &nodelay);
    ssh_options_set(s_, SSH_OPTIONS_PROCESS_CONFIG, &process_config);
    ssh_options_set(s_, SSH_OPTIONS_KNOWNHOSTS, sshd.known_hosts().c_str());
    ssh_key key = nullptr;
    if (ssh_connect(s_) != SSH_OK || ssh_session_is_known_server(s_) != SSH_KNOWN_HOSTS_OK ||
        ssh_pki_import_privkey_file(sshd.client_key().c_str(), nullptr, nullptr, nullptr, &key) != SSH_OK ||
        ssh_userauth_publickey(s_, nullptr, key) != SSH_AUTH_SUCCESS) {
      ssh_key_free(key);
      throw wb::Error(std::string("raw libssh session: ") + ssh_get_error(s_));
    }
    ssh_key_free(key);
  }
  ~RawLibssh() {
    ssh_disconnect(s_);
    ssh_free(s_);
  }
  RawLibssh(const RawLibssh&) = delete;
  RawLibssh& operator=(const RawLibssh&) = delete;

  std::string run(const char* command) {
    ssh_channel ch = ssh_channel_new(s_);
    std::string out;
    if (ch != nullptr && ssh_channel_open_session(ch) == SSH_OK &&
        ssh_channel_request_exec(ch, command) == SSH_OK) {
      char buf[256];
      for (int n; (n = ssh_channel_read(ch, buf, sizeof buf, 0)) > 0;)
        out.append(buf, static_cast<std::size_t>(n));
      ssh_channel_get_exit_status(ch);  // after EOF: returns once the server sent it
      ssh_channel_close(ch);
    }
    ssh_channel_free(ch);
    return out;
  }

 private:
  ssh_session s_;
};

void expect_echo(const wb::CommandResult& r, const std::string& what) {
  if (r.exit_status != 0 || r.out != "x\n") {
    throw wb::Error(fmt::format("{} failed (exit {}): {}{}", what, r.exit_status, r.out, r.err));
  }
}

}  // namespace

int main(int argc, char** argv) try {
  const int count = argc > 1 ? std::max(5, std::atoi(argv[1])) : 30;
  wb::test::SshdFixture sshd;
  wb::SshOptions o = wb::test::connection_to(sshd);

  auto local = wb::make_local_executor();
  const std::vector<std::string> ssh_cli = {"ssh",
                                            "-F",
                                            "/dev/null",
                                            "-p",
                                            std::to_string(sshd.port()),
                                            "-i",
                                            sshd.client_key(),
                                            "-l",
                                            sshd.user(),
                                            "-o",
                                            "UserKnownHostsFile=" + sshd.known_hosts(),
                                            "-o",
                                            "StrictHostKeyChecking=yes",
                                            "-o",
                                            "BatchMode=yes",
                                            "-o",
                                            "GlobalKnownHostsFile=/dev/null"};
  const std::string control_path = sshd.dir() + "/cm-%C";
  auto with = [](std::vector<std::string> base, std::vector<std::string> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
  };
  const auto cli_new = with(ssh_cli, {sshd.host(), "echo", "x"});
  const auto cli_mux = with(ssh_cli, {"-o", "ControlMaster=auto", "-o", "ControlPath=" + control_path, "-o",
                                      "ControlPersist=60", sshd.host(), "echo", "x"});

  std::vector<Figures> figures;
  Figures floor, program, opened, back_to_back;
  {
    auto ex = wb::make_ssh_executor(o);
    auto opened_only_options = o;
    opened_only_options.shell_ahead = false;
    auto opened_only = wb::make_ssh_executor(opened_only_options);
    RawLibssh raw(sshd);
    const auto pair =
        measure({{"libssh, one session reused (workbench)",
                  [&] {
                    expect_echo(ex->run({{"echo", "x"}, {}, {}, 10s}), "libssh echo");
                  }},
                 {"floor: raw libssh, reused, builtin echo",
                  [&] {
                    expect_echo({0, {}, raw.run("echo x"), {}, false}, "raw libssh echo");
                  }},
                 {"raw libssh, reused, exec /bin/echo",
                  [&] {
                    expect_echo({0, {}, raw.run("exec /bin/echo x"), {}, false}, "raw libssh /bin/echo");
                  }},
                 {"workbench, channel opened ahead only",
                  [&] {
                    expect_echo(opened_only->run({{"echo", "x"}, {}, {}, 10s}), "libssh echo (opened only)");
                  }}},
                3, count);
    figures.push_back(pair[0]);
    floor = pair[1];
    program = pair[2];
    opened = pair[3];
    if (ex->connections() != 1 || opened_only->connections() != 1)
      throw wb::Error("the session was not reused");
  }
  {
    auto ex = wb::make_ssh_executor(o);
    back_to_back = measure("workbench, back to back", 3, count, [&] {
      expect_echo(ex->run({{"echo", "x"}, {}, {}, 10s}), "libssh echo (back to back)");
    });
  }
  figures.push_back(measure("ssh CLI, new connection per command", 1, std::min(count, 20), [&] {
    expect_echo(local->run({cli_new, {}, {}, 20s}), "ssh echo");
  }));
  figures.push_back(measure("ssh CLI, ControlMaster/ControlPersist", 3, count, [&] {
    expect_echo(local->run({cli_mux, {}, {}, 20s}), "ssh (ControlMaster) echo");
  }));
  // Stop the background master that ControlPersist left.
  local->run({with(ssh_cli, {"-o", "ControlPath=" + control_path, "-O", "exit", sshd.host()}), {}, {}, 10s});
  figures.push_back(measure("libssh, new session per command", 1, std::min(count, 20), [&] {
    auto ex = wb::make_ssh_executor(o);
    expect_echo(ex->run({{"echo", "x"}, {}, {}, 10s}), "libssh echo (new session)");
  }));
  figures.push_back(floor);
  figures.push_back(program);
  figures.push_back(opened);
  figures.push_back(back_to_back);

  const double base = figures.front().median_ms;
  fmt::print("Per-command latency of `echo x` on loopback (sshd on 127.0.0.1:{}), {} commands per mode\n",
             sshd.port(), count);
  // Latency on a shared machine depends on its load: print it next to the figures.
  std::ifstream loadavg("/proc/loadavg");
  std::string load1;
  loadavg >> load1;
  fmt::print("load average (1 min) at the end: {} on {} cores\n\n", load1,
             std::thread::hardware_concurrency());
  fmt::print("{:<42} {:>5} {:>11} {:>9} {:>16}\n", "mode", "n", "median ms", "p90 ms", "median / (a)");
  char label = 'a';
  for (const auto& f : figures) {
    fmt::print("({}) {:<38} {:>5} {:>11.2f} {:>9.2f} {:>15.1f}x\n", label++, f.mode, f.count, f.median_ms,
               f.p90_ms, f.median_ms / base);
  }
  const bool met = base <= 3.0 && back_to_back.median_ms <= 3.0;
  fmt::print(
      "\ngoal: median <= 3 ms over the reused session: {:.2f} ms (a), {:.2f} ms back to back (h) "
      "-> {}\n",
      base, back_to_back.median_ms, met ? "met" : "NOT met");
  fmt::print(
      "reused session is {:.0f}x faster than a new ssh connection, {:.1f}x faster than ControlMaster\n",
      figures[1].median_ms / base, figures[2].median_ms / base);
  fmt::print(
      "the shell started ahead saves {:.2f} ms per command over the channel opened ahead only (g - a), "
      "{:.2f} ms back to back (g - h); a raw exec of the program costs {:+.2f} ms over a builtin (f - e)\n",
      opened.median_ms - base, opened.median_ms - back_to_back.median_ms,
      program.median_ms - floor.median_ms);
  return met ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_ssh: %s\n", e.what());
  return 1;
}
