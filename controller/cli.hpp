#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace wb {

// Options every subcommand takes.
struct CommonOptions {
  std::string config;
  std::string store;  // overrides [testbed] store
  bool json = false;

  // The store to open: --store when given, else the config's [testbed] store.
  std::string store_or(const std::string& configured) const { return store.empty() ? configured : store; }
};

// One subcommand: registers its options on `app` and returns the action to run after parsing.
// The action returns the process exit code and may throw Error/InputError/Interrupted.
struct Command {
  const char* name;
  const char* help;
  std::function<std::function<int()>(CLI::App& app, CommonOptions& common)> setup;
};

// Adds --config, --store and --json to a subcommand.
void add_common_options(CLI::App& app, CommonOptions& common, bool config_required = true);

// Runs the workbench command line; returns the exit code (see core/exit_status.hpp).
int run_cli(int argc, char** argv);

// The subcommand table (cli.cpp) and each subcommand's setup (one file each).
Command peak_command();
Command sim_command();
Command map_surface_command();
Command hosts_command();
Command whatif_command();
Command model_command();
Command report_command();
Command export_command();
Command probe_command();
Command agent_command();
Command trial_command();
Command classify_command();
Command disk_command();
Command trace_command();

}  // namespace wb
