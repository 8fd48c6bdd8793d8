// `workbench hosts check`: can workbench reach every host of the testbed, and what will it run?
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "core/error.hpp"
#include "harness/real_trial_runner.hpp"

namespace wb {

namespace {

using namespace std::chrono_literals;

std::string first_line(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  return l;
}

// `program --version` on `e`: the version line, or nullopt with the reason in *why.
std::optional<std::string> version_of(Executor& e, const std::string& program, std::string* why) {
  CommandResult r = e.run(CommandSpec{{program, "--version"}, {}, {}, 20s});
  if (r.ok()) return first_line(r.out);
  *why = r.exit_status == 127 ? "missing" : fmt::format("exit {}: {}", r.exit_status, first_line(r.err));
  return std::nullopt;
}

int run_check(const CommonOptions& common) {
  Config config = Config::load(common.config);
  if (!has_real_testbed(config))
    throw InputError(config.file() +
                     ": no [sut] section: nothing to check (a simulated testbed has no hosts)");
  TestbedConfig tb = parse_testbed(config);
  ProgramPaths local = locate_programs();
  std::string local_versions[2];
  {
    auto here = connect_host(HostConfig{});
    std::string why;
    local_versions[0] = version_of(*here, local.wbload, &why).value_or("unknown (" + why + ")");
    local_versions[1] = version_of(*here, local.refserver, &why).value_or("unknown (" + why + ")");
  }

  bool all_ok = true;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& h : tb.hosts) {
    nlohmann::json j{{"host", h.name},
                     {"address", h.local ? "local" : fmt::format("{}:{}", h.address, h.port)}};
    std::vector<std::string> roles;
    if (tb.sut.host == h.name) roles.push_back("sut");
    for (const auto& g : tb.workload.hosts) {
      if (g == h.name) roles.push_back("generator");
    }
    j["roles"] = roles;
    try {
      auto e = connect_host(h);
      j["connected"] = true;
      const char* names[2] = {"wbload", "refserver"};
      std::string paths[2] = {local.wbload, local.refserver};
      for (int i = 0; i < 2; ++i) {
        std::string path = h.local ? paths[i] : h.workdir + "/" + names[i];
        std::string why;
        auto v = version_of(*e, path, &why);
        nlohmann::json p{{"path", path}, {"version", v ? nlohmann::json(*v) : nlohmann::json(nullptr)}};
        if (!v) p["problem"] = why;
        p["current"] = v && *v == local_versions[i];
        if (!h.local && !p["current"].get<bool>()) p["note"] = "workbench uploads it before the first trial";
        if (h.local && !v) {
          all_ok = false;
          p["note"] = fmt::format(
              "trials run this copy: rebuild it, or set WB_BIN_DIR to a folder with a working {}", names[i]);
        }
        j[names[i]] = p;
      }
    } catch (const Error& err) {
      all_ok = false;
      j["connected"] = false;
      j["error"] = err.what();
    }
    out.push_back(j);
  }

  if (common.json) {
    std::cout << nlohmann::json{{"ok", all_ok}, {"hosts", out}}.dump(2) << "\n";
  } else {
    for (const auto& j : out) {
      std::string roles;
      for (const auto& r : j["roles"]) roles += (roles.empty() ? "" : ",") + r.get<std::string>();
      fmt::print("{} ({}) [{}]: ", j["host"].get<std::string>(), j["address"].get<std::string>(),
                 roles.empty() ? "unused" : roles);
      if (!j["connected"].get<bool>()) {
        fmt::print("FAILED: {}\n", j["error"].get<std::string>());
        continue;
      }
      fmt::print("connected\n");
      for (const char* n : {"wbload", "refserver"}) {
        const auto& p = j[n];
        std::string state =
            p["version"].is_null() ? p["problem"].get<std::string>() : p["version"].get<std::string>();
        fmt::print("  {:<10} {}  {}{}\n", n, p["path"].get<std::string>(), state,
                   p.contains("note") ? " — " + p["note"].get<std::string>() : "");
      }
    }
    fmt::print("{}\n", all_ok ? "all hosts ok" : "some hosts have problems");
  }
  return to_int(all_ok ? ExitStatus::kOk : ExitStatus::kNegative);
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
            "problems and the wbload/refserver versions there. Exit 1 when anything is wrong.");
        add_common_options(*check, common);
        return [&common] { return run_check(common); };
      }};
}

}  // namespace wb
