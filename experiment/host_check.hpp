#pragma once
// `workbench hosts check`: can workbench reach every host of a real testbed, and which wbload and
// refserver (and which generator program, when [workload] generator is not wbload) will each run?
// controller/cmd_hosts.cpp renders the result.
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"

namespace wb {

struct ProgramCheck {
  std::string name;                    // wbload, refserver, or the generator (pgbench, fio, command)
  std::string path;                    // where trials run it on that host
  std::optional<std::string> version;  // its `--version` line; nullopt: it did not answer
  std::string problem;                 // why not ("missing", "exit N: ...")
  bool current = false;                // the same version as this controller's copy
  std::string note;                    // what workbench does about it, or what the user must
};

struct HostCheck {
  std::string host;
  std::string address;             // "local" or address:port
  std::vector<std::string> roles;  // sut, generator
  bool connected = false;
  std::string error;                   // why not
  std::vector<ProgramCheck> programs;  // wbload, refserver (when connected)
};

struct HostsCheck {
  bool ok = true;  // every host connected and every local program answered
  std::vector<HostCheck> hosts;
};

// Connects to every [[hosts]] entry and asks each program its version. InputError for a
// simulated testbed (no [sut]).
HostsCheck check_hosts(const Config& config);

}  // namespace wb
