#pragma once
// The real-testbed sections of a config: [[hosts]], [sut] and [workload]. Parsed and validated
// (templates included) when the config is loaded, before anything runs.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "harness/generator_adapter.hpp"

namespace wb {

struct HostConfig {
  std::string name;
  bool local = true;    // no address (or "local"): this machine, no SSH
  std::string address;  // SSH host name or address
  int port = 22;
  std::string user;                        // default: the local user
  std::string identity;                    // private key file; empty: the SSH agent
  std::string known_hosts;                 // default: ~/.ssh/known_hosts
  bool accept_new = false;                 // host_key = "accept-new"; default "strict"
  std::string workdir = "/tmp/workbench";  // where wbload/refserver are uploaded (SSH hosts)
  // shell_ahead = false: open the next command's channel ahead but start no waiting shell on it
  // (SshOptions::shell_ahead; default true: a remote command then costs ~1.5 ms, not ~3.5).
  bool shell_ahead = true;
};

enum class Restart { kPerSample, kPerTrial };

// How workbench knows the SUT is up ([sut] ready).
enum class ReadyKind {
  kLine,     // its stdout has a line starting with "ready"
  kTcp,      // [sut] address:port accepts a TCP connection (from this machine)
  kCommand,  // ready_command run on the SUT's host exits 0
};

// [[sut.files]]: a file the SUT reads (its own config), written on the SUT's host before each
// start, so that the port and factor values reach every file a shipped config uses.
struct SutFile {
  std::string source;  // the template file, as resolved when the config loaded
  std::string text;    // its contents (expand_file_template)
  std::string path;    // where it is written: a template of an absolute path
};

struct SutConfig {
  std::string host;                // a [[hosts]] name
  std::string start;               // command template: {refserver}, {port}, factor names, ...
  std::vector<SutFile> files;      // written before the setup commands run
  std::vector<std::string> setup;  // command templates run (to completion) before each start
  // How workbench knows the SUT is up, within ready_timeout_s of its start (ReadyKind); a
  // ready_command is run again every ready_interval_s until it exits 0, each run limited to the
  // time left.
  ReadyKind ready = ReadyKind::kLine;
  std::string ready_command;  // template; only with ready = "command"
  double ready_interval_s = 0.2;
  double ready_timeout_s = 15;
  int port = 7400;
  std::string address = "127.0.0.1";  // where generators reach the SUT ({sut_address})
  Restart restart = Restart::kPerSample;
  double settle_s = 0;  // pause after ready, before the first trial
  // How long a stopped SUT's process group has between SIGTERM and SIGKILL: a database may need
  // seconds to shut down and clean up.
  double stop_grace_s = 2;
};

struct WorkloadConfig {
  std::vector<std::string> hosts;  // generator hosts; λ is split evenly across them
  GeneratorKind generator = GeneratorKind::kWbload;
  // pgbench, fio: the program (a template; default its name, looked up in PATH); command: the
  // command template, with generator_run_placeholders() beside the factors and built-ins.
  std::string program;
  JsonOutputMap output;  // command: where its JSON output holds each figure ([workload.output])
  // wbload only: protocol, mix, arrivals.
  std::string protocol = "rpc";
  std::string target = "{sut_address}:{port}";  // template
  std::string mix;                              // template of a mix file path (may use factors, {source})
  int connections = 16;
  std::string connections_template;  // when connections is a template ("{clients}"): per sample
  int threads = 1;
  std::string arrivals = "poisson";
  double warmup_s = 2;
  double timeout_s = 5;           // per-request timeout
  std::vector<std::string> args;  // extra arguments of wbload, pgbench or fio (templates)
  double overhead_s = 0;          // extra cost per trial beyond what is measured
  // A generator still running this long after warm-up + runlength + timeout_s (when it should
  // have printed its result) is killed with its whole process group and the trial fails.
  double deadline_slack_s = 30;
  // wbload and fio: record every counted operation (wbload --trace, fio's per-I/O latency logs) and
  // store the merged I/O trace
  // (models/io_trace.hpp) with its trial, for the storage what-if modules ([model.storage]).
  bool trace = false;
  // The CPUs every generator process may run on (taskset's list, a template; "" = any): on a
  // machine shared with the SUT, where the scheduler would otherwise move both between cores.
  std::string cpus;

  int connections_for(const std::map<std::string, std::string>& values) const;
};

// The CPU list (as taskset --cpu-list takes it: "1", "0-1,3") of [workload] cpus for the template
// values of a sample. Throws InputError naming what it gave unless that is one such list.
std::string cpu_list_from(const std::string& cpus_template, const std::map<std::string, std::string>& values);

// connections of a workload for the template values of a sample. Throws InputError unless it is
// a whole number from 1 to kMaxConnections.
int connections_from(const std::string& connections_template,
                     const std::map<std::string, std::string>& values);

struct TestbedConfig {
  std::vector<HostConfig> hosts;
  SutConfig sut;
  WorkloadConfig workload;

  const HostConfig& host(const std::string& name) const;
};

// True when the config describes a real testbed ([sut] present).
bool has_real_testbed(const Config& config);

// Parses [[hosts]], [sut] and [workload]; checks host references and that every {placeholder}
// of every template is a factor or a built-in (refserver, wbload, port, sut_address, source,
// config_dir). Throws InputError with FILE:LINE:KEY.
TestbedConfig parse_testbed(const Config& config);

// The placeholder values for `sample`: factor values plus the built-ins. `programs` maps
// "refserver" and "wbload" to their paths on the host that runs the command.
std::map<std::string, std::string> template_values(const Config& config, const TestbedConfig& tb,
                                                   const Sample& sample,
                                                   const std::map<std::string, std::string>& programs);

}  // namespace wb
