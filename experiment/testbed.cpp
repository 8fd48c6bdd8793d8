#include "experiment/testbed.hpp"

#include <unistd.h>

#include <iostream>

#include "core/error.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/process_cleanup.hpp"
#include "harness/real_trial_runner.hpp"
#include "harness/sim/sim_testbed.hpp"
#include "store/store.hpp"

namespace wb {

std::optional<TestbedConfig> validate_testbed(const Config& config) {
  if (has_real_testbed(config)) {
    TestbedConfig testbed = parse_testbed(config);
    cleanup_options_from_env();  // a bad WB_FOREIGN_OWNER_TIMEOUT_S fails here, before the store opens
    return testbed;
  }
  if (!config.sim()) {
    throw InputError(config.file() +
                     ": no testbed to run: add [sut] and [workload] (a real testbed) or [sim]");
  }
  return std::nullopt;
}

namespace {

// A real testbed's runner with the registry that records what it starts; the runner goes first
// (stopping its processes, which drops their rows).
class RecordedTrialRunner final : public TrialRunner {
 public:
  RecordedTrialRunner(std::unique_ptr<StoreProcessRegistry> registry, const Config& config,
                      const TestbedConfig& testbed, RealRunnerOptions options)
      : registry_(std::move(registry)) {
    options.registry = registry_.get();
    runner_ = std::make_unique<RealTrialRunner>(config, testbed, std::move(options));
  }
  TrialResult run(const Sample& sample, double rate, double runlength_s, std::uint64_t trial_index) override {
    return runner_->run(sample, rate, runlength_s, trial_index);
  }

 private:
  std::unique_ptr<StoreProcessRegistry> registry_;
  std::unique_ptr<RealTrialRunner> runner_;
};

}  // namespace

std::unique_ptr<TrialRunner> make_trial_runner(const Config& config,
                                               const std::optional<TestbedConfig>& testbed,
                                               std::uint64_t seed, bool verbose,
                                               const std::string& store_path, std::function<bool()> stop) {
  if (!testbed) return std::make_unique<sim::SimulatedTestbed>(*config.sim(), seed);
  {
    store::Store store(store_path);
    kill_orphaned_processes(store, config.name(), *testbed, std::cerr);
  }
  RealRunnerOptions o;
  o.programs = locate_programs();
  o.seed = seed;
  if (stop)
    o.interrupted = [stop = std::move(stop)] { return interrupt_requested() || stop(); };
  else
    o.interrupted = interrupt_requested;
  if (verbose) {
    // On a terminal a log line replaces the progress line (InterruptibleRunner redraws it).
    o.log = [tty = isatty(STDERR_FILENO) == 1](const std::string& line) {
      std::cerr << (tty ? "\r\033[K" : "") << line << "\n";
    };
  }
  return std::make_unique<RecordedTrialRunner>(
      std::make_unique<StoreProcessRegistry>(store_path, config.name()), config, *testbed, std::move(o));
}

std::uint64_t default_seed(const Config& config) { return config.sim() ? config.sim()->seed : 1; }

}  // namespace wb
