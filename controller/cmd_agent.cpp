// `workbench agent`: runs due probes unattended [000 §3.3.2]. With --once it runs what is due and
// exits (for cron); otherwise it looks again every [probing] poll_s until interrupted.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "controller/cli.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/leases.hpp"
#include "experiment/probe_runner.hpp"
#include "experiment/testbed.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

struct AgentOptions {
  bool once = false;
  int max = -1;
  bool verbose = false;
};

// Sleeps up to `seconds`, waking early on an interrupt.
void interruptible_sleep(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (interrupt_requested()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int run_agent(const CommonOptions& common, const AgentOptions& o) {
  if (o.max == 0 || o.max < -1) throw InputError("agent: --max must be a positive number of probes");
  Config config = Config::load(common.config);
  ProbeConfig probing = probe_config(config);
  PeakRequest request;
  request.verbose = o.verbose;
  PreparedPeak prepared = prepare_peak(config, request);
  validate_testbed(config);
  store::Store store(common.store_or(config.store_path()));
  Leases leases(store.path(), config.lease_timeout_s());
  leases.sweep(store, std::cerr);
  ZCartAttributes attributes(config);
  ProbeRunner runner{config, probing, request, prepared, leases, std::cerr, &attributes};

  int ran = 0;
  for (;;) {
    ran += run_due_probes(store, runner, o.max < 0 ? -1 : o.max - ran);
    if (o.once || (o.max > 0 && ran >= o.max)) break;
    interruptible_sleep(probing.poll_s);
    check_interrupt();  // between probes nothing is in flight: a clean stop (exit 130)
  }
  std::size_t open = store.mismatches(config.name(), true).size();
  if (common.json) {
    std::cout << nlohmann::json{{"ran", ran}, {"open_mismatches", open}}.dump() << "\n";
  } else {
    std::cout << fmt::format("{} probe(s) run; {} mismatch(es) open\n", ran, open);
  }
  return 0;
}

}  // namespace

Command agent_command() {
  return Command{
      "agent",
      "Run the probes scheduled after mismatches as they fall due: each one a peak search, stored "
      "and fed into the Z-CART model; a mismatch closes once the refined model predicts it. "
      "Several agents may share a store: each probe runs once.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<AgentOptions>();
        add_common_options(app, common);
        app.add_flag("--once", o->once, "run what is due now and exit (for cron)");
        app.add_option("--max", o->max, "stop after N probes")->transform(cli::whole_number(1, 1000000000));
        app.add_flag("--verbose,-v", o->verbose, "log every stored trial to stderr");
        return [&common, o] { return run_agent(common, *o); };
      }};
}

}  // namespace wb
