// `workbench hosts check`: can workbench reach every host of the testbed, and what will it run?
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "core/exit_status.hpp"
#include "experiment/host_check.hpp"

namespace wb {

namespace {

// DESIGN.md "Command contracts": hosts check --json.
nlohmann::json hosts_json(const HostsCheck& check) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const HostCheck& h : check.hosts) {
    nlohmann::json j{
        {"host", h.host}, {"address", h.address}, {"roles", h.roles}, {"connected", h.connected}};
    if (!h.connected) j["error"] = h.error;
    for (const ProgramCheck& p : h.programs) {
      nlohmann::json pj{{"path", p.path},
                        {"version", p.version ? nlohmann::json(*p.version) : nlohmann::json(nullptr)},
                        {"current", p.current}};
      if (!p.version) pj["problem"] = p.problem;
      if (!p.note.empty()) pj["note"] = p.note;
      j[p.name] = pj;
    }
    hosts.push_back(j);
  }
  return {{"ok", check.ok}, {"hosts", hosts}};
}

void print_hosts(const HostsCheck& check) {
  for (const HostCheck& h : check.hosts) {
    std::string roles;
    for (const auto& r : h.roles) roles += (roles.empty() ? "" : ",") + r;
    fmt::print("{} ({}) [{}]: ", h.host, h.address, roles.empty() ? "unused" : roles);
    if (!h.connected) {
      fmt::print("FAILED: {}\n", h.error);
      continue;
    }
    fmt::print("connected\n");
    for (const ProgramCheck& p : h.programs) {
      fmt::print("  {:<10} {}  {}{}\n", p.name, p.path, p.version ? *p.version : p.problem,
                 p.note.empty() ? "" : " — " + p.note);
    }
  }
  fmt::print("{}\n", check.ok ? "all hosts ok" : "some hosts have problems");
}

int run_check(const CommonOptions& common) {
  HostsCheck check = check_hosts(Config::load(common.config));
  if (common.json)
    std::cout << hosts_json(check).dump(2) << "\n";
  else
    print_hosts(check);
  return to_int(check.ok ? ExitStatus::kOk : ExitStatus::kNegative);
}

}  // namespace

Command hosts_command() {
  return Command{
      "hosts", "Testbed hosts: `hosts check` connects to each and reports what it would run.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        app.require_subcommand(1);
        CLI::App* check = app.add_subcommand(
            "check",
            "Connect to every host of the config (SSH: host key verified, key or agent auth), report "
            "problems and the versions of wbload, refserver and the [workload] generator there. Exit 1 when "
            "anything is wrong.");
        add_common_options(*check, common);
        return [&common] { return run_check(common); };
      }};
}

}  // namespace wb
