// Per-command latency of remote commands on loopback, issue 4's benchmark:
//   (a) SshExecutor: one libssh session reused, one channel per command (workbench's way)
//   (b) the `ssh` CLI with a new connection per command
//   (c) the `ssh` CLI multiplexed over a ControlMaster/ControlPersist connection
//   (d) libssh with a new session per command (what reuse saves)
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

#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "harness/ssh_executor.hpp"
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

// Times `count` calls of `one` after `warmup` untimed ones; `one` must throw on failure.
Figures measure(const std::string& mode, int warmup, int count, const std::function<void()>& one) {
  for (int i = 0; i < warmup; ++i) one();
  std::vector<double> ms;
  for (int i = 0; i < count; ++i) {
    const auto t0 = Clock::now();
    one();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return {mode, ms.size(), percentile(ms, 0.5), percentile(ms, 0.9)};
}

void expect_echo(const wb::CommandResult& r, const std::string& what) {
  if (r.exit_status != 0 || r.out != "x\n") {
    throw wb::Error(fmt::format("{} failed (exit {}): {}{}", what, r.exit_status, r.out, r.err));
  }
}

}  // namespace

int main(int argc, char** argv) try {
  const int count = argc > 1 ? std::max(5, std::atoi(argv[1])) : 30;
  wb::test::SshdFixture sshd;
  wb::SshOptions o;
  o.host = sshd.host();
  o.port = sshd.port();
  o.user = sshd.user();
  o.identity_file = sshd.client_key();
  o.known_hosts_file = sshd.known_hosts();
  o.global_known_hosts_file = "";

  auto local = wb::make_local_executor();
  const std::vector<std::string> ssh_cli = {
      "ssh", "-F", "/dev/null", "-p", std::to_string(sshd.port()), "-i", sshd.client_key(),
      "-l", sshd.user(), "-o", "UserKnownHostsFile=" + sshd.known_hosts(),
      "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "GlobalKnownHostsFile=/dev/null"};
  const std::string control_path = sshd.dir() + "/cm-%C";
  auto with = [](std::vector<std::string> base, std::vector<std::string> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
  };
  const auto cli_new = with(ssh_cli, {sshd.host(), "echo", "x"});
  const auto cli_mux = with(ssh_cli, {"-o", "ControlMaster=auto", "-o", "ControlPath=" + control_path,
                                      "-o", "ControlPersist=60", sshd.host(), "echo", "x"});

  std::vector<Figures> figures;
  {
    auto ex = wb::make_ssh_executor(o);
    figures.push_back(measure("libssh, one session reused (workbench)", 3, count, [&] {
      expect_echo(ex->run({{"echo", "x"}, {}, {}, 10s}), "libssh echo");
    }));
    if (ex->connections() != 1) throw wb::Error("the session was not reused");
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

  const double base = figures.front().median_ms;
  fmt::print("Per-command latency of `echo x` on loopback (sshd on 127.0.0.1:{}), {} commands per mode\n",
             sshd.port(), count);
  // Latency on a shared machine depends on its load: print it next to the figures.
  std::ifstream loadavg("/proc/loadavg");
  std::string load1;
  loadavg >> load1;
  fmt::print("load average (1 min) at the end: {} on {} cores\n\n", load1, std::thread::hardware_concurrency());
  fmt::print("{:<42} {:>5} {:>11} {:>9} {:>16}\n", "mode", "n", "median ms", "p90 ms", "median / (a)");
  char label = 'a';
  for (const auto& f : figures) {
    fmt::print("({}) {:<38} {:>5} {:>11.2f} {:>9.2f} {:>15.1f}x\n", label++, f.mode, f.count, f.median_ms,
               f.p90_ms, f.median_ms / base);
  }
  const bool met = base <= 3.0;
  fmt::print("\ngoal (issue 4): median <= 3 ms over the reused session: {:.2f} ms -> {}\n", base,
             met ? "met" : "NOT met");
  fmt::print("reused session is {:.0f}x faster than a new ssh connection, {:.1f}x faster than ControlMaster\n",
             figures[1].median_ms / base, figures[2].median_ms / base);
  return met ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_ssh: %s\n", e.what());
  return 1;
}
