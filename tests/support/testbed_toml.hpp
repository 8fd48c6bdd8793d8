#pragma once
// Test helper: a small refserver testbed config written from a few parameters, for the tests that
// run refserver and wbload through workbench on this machine or over SSH. The layout is fixed
// (tests check file:line of config errors in it): [testbed], the factors, [peak], each
// [[hosts]], [sut] (host and port first), [workload].
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace wb::test {

// refserver's command line with `disks` disks ("{disks}": the factor's level) of `disk_ms` ms and
// a CPU stage of `cpu_ms` ms that sleeps (so the test's own CPU use does not skew it).
inline std::string refserver_command(const std::string& disks, const std::string& cpu_ms,
                                     const std::string& disk_ms) {
  return "{refserver} --port {port} --bind 127.0.0.1 --threads {threads} --disks " + disks + " --cpu-ms " +
         cpu_ms + " --cpu-mode sleep --disk-ms " + disk_ms;
}

// The [sut] start line of refserver_command.
inline std::string refserver_start(const std::string& disks, const std::string& cpu_ms,
                                   const std::string& disk_ms) {
  return "start = \"" + refserver_command(disks, cpu_ms, disk_ms) + "\"";
}

// The lines of a [[hosts]] table named `name` reached through `sshd` (an SshdFixture), programs
// uploaded to `workdir`.
template <typename Sshd>
std::string ssh_host(const std::string& name, const Sshd& sshd, const std::filesystem::path& workdir) {
  return "name = \"" + name + "\"\naddress = \"" + sshd.host() + "\"\nport = " + std::to_string(sshd.port()) +
         "\nuser = \"" + sshd.user() + "\"\nidentity = \"" + sshd.client_key() + "\"\nknown_hosts = \"" +
         sshd.known_hosts() + "\"\nworkdir = \"" + workdir.string() + "\"\n";
}

struct RefserverTestbed {
  std::string name{};
  int threads = 4;  // the one level of [factors.threads]
  int disks = 2;    // the one level of [factors.disks]; 0: no such factor
  std::string target = "90/70";
  std::string peak{};                     // [peak] lines after r_sat_ms = 8, width = 0.2 and target
  std::vector<std::string> hosts{};       // the lines of each [[hosts]] table, each ending in "\n"
  std::string sut_host{};                 // [sut] host
  int port = 0;                           // [sut] port
  std::string sut{};                      // [sut] lines after host and port: the start line and more
  std::vector<std::string> load_hosts{};  // [workload] hosts
  int connections = 4;                    // [workload] connections (rpc to 127.0.0.1:{port})
  std::string workload{};                 // [workload] lines after connections
};

inline std::string testbed_toml(const RefserverTestbed& t) {
  std::string text = "[testbed]\nname = \"" + t.name + "\"\n\n[factors.threads]\nlevels = [" +
                     std::to_string(t.threads) + "]\n\n";
  if (t.disks > 0) text += "[factors.disks]\nlevels = [" + std::to_string(t.disks) + "]\n\n";
  text += "[peak]\nr_sat_ms = 8\nwidth = 0.2\ntarget = \"" + t.target + "\"\n" + t.peak + "\n";
  for (const std::string& h : t.hosts) text += "[[hosts]]\n" + h + "\n";
  text += "[sut]\nhost = \"" + t.sut_host + "\"\nport = " + std::to_string(t.port) + "\n" + t.sut + "\n\n";
  std::string hosts;
  for (const std::string& h : t.load_hosts) hosts += (hosts.empty() ? "\"" : ", \"") + h + "\"";
  text +=
      "[workload]\nhosts = [" + hosts +
      "]\nprotocol = \"rpc\"\ntarget = \"127.0.0.1:{port}\"\nconnections = " + std::to_string(t.connections) +
      "\n" + t.workload;
  return text;
}

// Writes testbed_toml(t) to `file`; returns its path.
inline std::string write_testbed(const std::filesystem::path& file, const RefserverTestbed& t) {
  std::ofstream(file) << testbed_toml(t);
  return file.string();
}

// A small refserver testbed (4 threads, 2 disks of 5 ms, 0.2 ms of CPU; 8 connections) all on the
// host "remote" reached through `sshd`, programs uploaded to `dir`/work; `peak`: its [peak] lines
// after the target. Written to `dir`/ssh.toml; returns its path.
template <typename Sshd>
std::string write_ssh_refserver(const std::filesystem::path& dir, const std::string& name, const Sshd& sshd,
                                int port, const std::string& peak) {
  RefserverTestbed t{.name = name, .peak = peak};
  t.hosts = {ssh_host("remote", sshd, dir / "work")};
  t.sut_host = "remote";
  t.port = port;
  t.sut = refserver_start("{disks}", "0.2", "5");
  t.load_hosts = {"remote"};
  t.connections = 8;
  t.workload = "warmup_s = 0.5\n";
  return write_testbed(dir / "ssh.toml", t);
}

}  // namespace wb::test
