#include "controller/testbed.hpp"

#include <unistd.h>

#include <iostream>

#include "controller/interrupt.hpp"
#include "core/error.hpp"
#include "harness/real_trial_runner.hpp"
#include "harness/sim/sim_testbed.hpp"

namespace wb {

std::optional<TestbedConfig> validate_testbed(const Config& config) {
  if (has_real_testbed(config)) return parse_testbed(config);
  if (!config.sim()) {
    throw InputError(config.file() +
                     ": no testbed to run: add [sut] and [workload] (a real testbed) or [sim]");
  }
  return std::nullopt;
}

std::unique_ptr<TrialRunner> make_trial_runner(const Config& config,
                                               const std::optional<TestbedConfig>& testbed,
                                               std::uint64_t seed, bool verbose, std::function<bool()> stop) {
  if (!testbed) return std::make_unique<sim::SimulatedTestbed>(*config.sim(), seed);
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
  return std::make_unique<RealTrialRunner>(config, *testbed, o);
}

std::uint64_t default_seed(const Config& config) { return config.sim() ? config.sim()->seed : 1; }

}  // namespace wb
