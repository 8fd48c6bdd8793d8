#pragma once
// The TrialRunner of real testbeds: configures and starts the SUT for a sample from [sut], runs
// wbload on every generator host in parallel with its share of λ, merges their histograms
// exactly and returns one TrialResult.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/trial.hpp"
#include "harness/executor.hpp"
#include "harness/generator_adapter.hpp"
#include "harness/process_registry.hpp"
#include "harness/sut_stage_stats.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

struct LoadResult;  // workloads/result.hpp

// Where the programs workbench ships to hosts are on this machine.
struct ProgramPaths {
  std::string wbload;
  std::string refserver;
};

// Finds wbload and refserver next to the running workbench (its build tree or install
// directory), or in $WB_BIN_DIR. Throws Error naming what is missing.
ProgramPaths locate_programs();

struct RealRunnerOptions {
  ProgramPaths programs;
  std::uint64_t seed = 1;                       // wbload --seed base (arrival streams)
  std::function<bool()> interrupted;            // polled while a trial runs; true => stop, throw Interrupted
  std::function<void(const std::string&)> log;  // progress lines (may be empty)
  // Records every process the runner starts (not owned; must outlive the runner); may be null.
  ProcessRegistry* registry = nullptr;
  // Makes the executor of a host; empty means connect_host. Tests pass a fake here to drive the
  // SUT lifecycle, deadlines and merging without processes or real time.
  std::function<std::unique_ptr<Executor>(const HostConfig&)> connect;
};

// Makes the executor for one host: local or SSH. Throws Error (host key, auth, unreachable).
std::unique_ptr<Executor> connect_host(const HostConfig& host);
// What describe() of connect_host(host) says ("local", "user@address:port"), without connecting.
std::string host_description(const HostConfig& host);

// Runs trials on the hosts of a real testbed, with wbload or another generator through its adapter
// (generator_adapter.hpp).
// Stages: when sut_reports_stages(), each trial resets refserver's counters just before the generators
// start and reads them after, over TCP from here to [sut] address:port, into TrialResult::stage_ms;
// stats that cannot be read leave it empty and are logged, and the trial stands.
// Lifecycle: the SUT is (re)started, after the [sut] setup commands, when the sample changes
// ("per-sample") or before every trial ("per-trial"), and its group stopped when the runner is
// destroyed, a trial fails, or on interrupt. Commands come from templates, each substitution one word.
// Deadlines: the SUT must be ready within ready_timeout_s; each generator must finish within warmup_s +
// runlength + timeout_s + deadline_slack_s; past either, the trial's processes are killed and run()
// throws an Error naming the deadline. Not thread-safe. Throws Error when a trial cannot run (SUT never
// ready, generator failed or printed garbage, connection lost); Interrupted when options.interrupted().
class RealTrialRunner final : public TrialRunner {
 public:
  RealTrialRunner(const Config& config, TestbedConfig testbed, RealRunnerOptions options);
  ~RealTrialRunner() override;

  TrialResult run(const Sample& sample, double rate, double runlength_s, std::uint64_t trial_index) override;

  // Connects every host and makes sure each has current copies of wbload and refserver.
  void prepare();
  // Stops the SUT if it runs. Safe to call repeatedly.
  void stop_sut() noexcept;

 private:
  struct Host;
  Host& host(const std::string& name);
  void start_sut(const Sample& sample);
  void wait_ready(Host& sut_host, const std::map<std::string, std::string>& values);
  std::map<std::string, std::string> values_for(Host& h, const Sample& sample);
  std::optional<nlohmann::json> sut_stats(bool reset);
  std::string trace_path(const Host& h, std::uint64_t trial_index, std::size_t generator_index) const;
  std::string collect_traces(const std::vector<LoadResult>& parts, std::uint64_t trial_index);
  void remove_traces(std::uint64_t trial_index) noexcept;
  std::vector<std::string> wbload_argv(Host& h, const Sample& sample, double rate, double runlength_s,
                                       std::uint64_t trial_index, std::size_t generator_index);
  // What an adapted generator (not wbload) on `h` is asked to do.
  GeneratorRun generator_run(Host& h, const Sample& sample, double rate, double runlength_s,
                             std::uint64_t trial_index, std::size_t generator_index);
  // argv behind `taskset --cpu-list L` when [workload] cpus gives L for the sample.
  std::vector<std::string> pinned(Host& h, const Sample& sample, std::vector<std::string> argv);
  struct Generator;
  // Starts wbload on every generator host and waits for all of them (Interrupted stops them).
  std::vector<Generator> run_generators(const Sample& sample, double share, double runlength_s,
                                        std::uint64_t trial_index, double limit_s);
  // Each generator's checked result; an Error names the host whose run or output was wrong.
  std::vector<LoadResult> gather(const std::vector<Generator>& gens, double share, double runlength_s,
                                 double limit_s);

  const Config& config_;
  TestbedConfig testbed_;
  RealRunnerOptions options_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::unique_ptr<GeneratorAdapter> adapter_;  // null for wbload
  std::unique_ptr<Process> sut_;
  std::optional<Sample> sut_sample_;
};

}  // namespace wb
