#include "experiment/host_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "harness/generator_adapter.hpp"
#include "harness/real_trial_runner.hpp"
#include "harness/shell_quote.hpp"

namespace wb {

namespace {

using namespace std::chrono_literals;

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// `program --version` on `e`: the version line, or nullopt with the reason in *why.
std::optional<std::string> version_of(Executor& e, const std::string& program, std::string* why) {
  CommandResult r = e.run(CommandSpec{{program, "--version"}, {}, {}, 20s});
  if (r.ok()) return first_line(r.out);
  *why = r.exit_status == 127 ? "missing" : fmt::format("exit {}: {}", r.exit_status, first_line(r.err));
  return std::nullopt;
}

struct LocalProgram {
  const char* name;
  std::string path;
  std::string version;  // of this controller's copy
};

ProgramCheck check_program(Executor& e, const HostConfig& h, const LocalProgram& local) {
  ProgramCheck p;
  p.name = local.name;
  p.path = h.local ? local.path : h.workdir + "/" + local.name;
  p.version = version_of(e, p.path, &p.problem);
  p.current = p.version && *p.version == local.version;
  if (!h.local && !p.current) p.note = "workbench uploads it before the first trial";
  if (h.local && !p.version) {
    p.note = fmt::format("trials run this copy: rebuild it, or set WB_BIN_DIR to a folder with a working {}",
                         local.name);
  }
  return p;
}

// An adapted generator's program on a generator host: where it is and what `--version` says.
ProgramCheck check_generator(Executor& e, const std::string& name, const std::string& program) {
  ProgramCheck p;
  p.name = name;
  p.path = program;
  CommandResult where =
      e.run(CommandSpec{{"sh", "-c", "command -v \"$1\"", "wb-check", program}, {}, {}, 20s});
  if (!where.ok()) {
    p.problem = "missing";
    p.note = "trials run it on this host: install it or set [workload] program to its path";
    return p;
  }
  p.path = first_line(where.out);
  CommandResult r = e.run(CommandSpec{{program, "--version"}, {}, {}, 20s});
  std::string text = r.out.empty() ? r.err : r.out;
  p.version = r.ok() && !text.empty() ? first_line(text) : "present (it does not answer --version)";
  p.current = true;
  return p;
}

// The adapted generator's program as the hosts run it (the config's default sample).
std::optional<std::pair<std::string, std::string>> generator_program(const Config& config,
                                                                     const TestbedConfig& tb) {
  const WorkloadConfig& w = tb.workload;
  if (w.generator == GeneratorKind::kWbload) return std::nullopt;
  auto values = template_values(config, tb, config.default_sample(), {});
  if (w.generator == GeneratorKind::kCommand) {
    GeneratorRun run;
    run.values = values;
    add_run_values(run);
    return std::pair{std::string("command"), expand_command_template(w.program, run.values).front()};
  }
  return std::pair{std::string(generator_name(w.generator)),
                   expand_command_template(w.program, values).front()};
}

}  // namespace

HostsCheck check_hosts(const Config& config) {
  if (!has_real_testbed(config))
    throw InputError(config.file() +
                     ": no [sut] section: nothing to check (a simulated testbed has no hosts)");
  const TestbedConfig tb = parse_testbed(config);
  const ProgramPaths paths = locate_programs();
  std::array<LocalProgram, 2> local{{{"wbload", paths.wbload, ""}, {"refserver", paths.refserver, ""}}};
  {
    auto here = connect_host(HostConfig{});
    for (LocalProgram& l : local) {
      std::string why;
      l.version = version_of(*here, l.path, &why).value_or("unknown (" + why + ")");
    }
  }
  HostsCheck out;
  for (const auto& h : tb.hosts) {
    HostCheck c;
    c.host = h.name;
    c.address = h.local ? "local" : fmt::format("{}:{}", h.address, h.port);
    if (tb.sut.host == h.name) c.roles.push_back("sut");
    for (const auto& g : tb.workload.hosts) {
      if (g == h.name) c.roles.push_back("generator");
    }
    try {
      auto e = connect_host(h);
      c.connected = true;
      for (const LocalProgram& l : local) {
        c.programs.push_back(check_program(*e, h, l));
        if (h.local && !c.programs.back().version) out.ok = false;
      }
      const bool generates = std::find(c.roles.begin(), c.roles.end(), "generator") != c.roles.end();
      if (auto g = generator_program(config, tb); g && generates) {
        c.programs.push_back(check_generator(*e, g->first, g->second));
        if (!c.programs.back().version) out.ok = false;
      }
    } catch (const Error& err) {
      out.ok = false;
      c.connected = false;
      c.error = err.what();
    }
    out.hosts.push_back(std::move(c));
  }
  return out;
}

}  // namespace wb
