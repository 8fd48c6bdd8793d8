#include "controller/cli.hpp"

#include <fmt/format.h>

#include <iostream>
#include <vector>

#include "core/error.hpp"
#include "experiment/interrupt.hpp"

namespace wb {

void add_common_options(CLI::App& app, CommonOptions& common, bool config_required) {
  auto* c = app.add_option("--config,-c", common.config, "testbed config (TOML)");
  if (config_required) c->required();
  app.add_option("--store", common.store,
                 "SQLite store (default: the config's [testbed] store, else workbench.db beside the config)");
  app.add_flag("--json", common.json, "machine-readable output on stdout");
}

int run_cli(int argc, char** argv) {
  CLI::App app{
      "workbench: finds a server's peak rate with stated confidence and maps how it changes with its "
      "configuration.\n\nExample:\n  workbench peak --config configs/sim.toml --set disks=2,threads=16 "
      "--target 95/90\n"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "workbench 0.1.0");

  CommonOptions common;
  std::function<int()> action;
  std::vector<Command> commands{peak_command(),   sim_command(),   hosts_command(),  map_surface_command(),
                                whatif_command(), model_command(), report_command(), export_command(),
                                probe_command(),  agent_command(), trial_command(),  classify_command(),
                                disk_command(),   trace_command()};
  for (auto& cmd : commands) {
    CLI::App* sub = app.add_subcommand(cmd.name, cmd.help);
    auto act = cmd.setup(*sub, common);
    sub->callback([&action, act] { action = act; });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "workbench: " << e.what() << " (see --help)\n";
    return to_int(ExitStatus::kUsage);
  } catch (const Error& e) {  // thrown by option validators
    std::cerr << "workbench: " << e.what() << "\n";
    return to_int(e.status());
  }

  install_interrupt_handlers();
  try {
    return action ? action() : to_int(ExitStatus::kUsage);
  } catch (const Error& e) {
    std::cerr << "workbench: " << e.what() << "\n";
    return to_int(e.status());
  } catch (const std::exception& e) {
    std::cerr << "workbench: internal error: " << e.what() << "\n";
    return to_int(ExitStatus::kNegative);
  }
}

}  // namespace wb
