#include "harness/testbed_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/config_section.hpp"
#include "core/error.hpp"
#include "core/trial_limits.hpp"
#include "harness/refserver_arguments.hpp"
#include "harness/shell_quote.hpp"

namespace wb {

namespace {

const char* const kBuiltins[] = {"refserver", "wbload", "port", "sut_address", "source", "config_dir"};

std::map<std::string, std::string> check_values(const Config& config);

// Expands `text` with every known name bound, so a typo in a placeholder fails at load time.
void check_template(ConfigSection& s, const std::string& key, const std::string& text, const Config& config) {
  try {
    (void)expand_command_template(text, check_values(config));
  } catch (const InputError& e) {
    s.fail(key, e.what());
  }
}

// The values a template is checked with: every factor at its first level, every built-in as "x".
std::map<std::string, std::string> check_values(const Config& config) {
  std::map<std::string, std::string> values;
  for (const auto& f : config.factors()) values[f.name] = f.levels.front();
  for (const char* b : kBuiltins) values[b] = "x";
  return values;
}

// [[sut.files]]: template (a file, relative to the config's folder) and path (where to write it).
std::vector<SutFile> parse_sut_files(ConfigSection& sut, const Config& config) {
  std::vector<SutFile> files;
  const std::filesystem::path dir = std::filesystem::absolute(config.file()).parent_path();
  for (auto& f : sut.table_array("files")) {
    SutFile file;
    std::filesystem::path source = f.string("template");
    file.source = (source.is_absolute() ? source : dir / source).lexically_normal().string();
    std::ifstream in(file.source, std::ios::binary);
    if (!in.is_open()) f.fail("template", fmt::format("cannot read {}", file.source));
    std::stringstream text;
    text << in.rdbuf();
    file.text = text.str();
    file.path = f.string("path");
    std::string path;
    try {
      (void)expand_file_template(file.text, check_values(config));
    } catch (const InputError& e) {
      f.fail("template", fmt::format("{}: {}", file.source, e.what()));
    }
    try {
      path = expand_file_template(file.path, check_values(config));
    } catch (const InputError& e) {
      f.fail("path", e.what());
    }
    if (path.rfind('/', 0) != 0) f.fail("path", "must be an absolute path (it is written on the SUT's host)");
    f.finish();
    files.push_back(std::move(file));
  }
  return files;
}

HostConfig parse_host(ConfigSection& h) {
  HostConfig c;
  c.name = h.string("name");
  std::string address = h.string_or("address", "local");
  c.local = address == "local";
  c.address = c.local ? "" : address;
  c.port = h.integer_or("port", 22, 1, 65535, "must be a TCP port (1-65535)");
  c.user = h.string_or("user", "");
  c.identity = h.string_or("identity", "");
  c.known_hosts = h.string_or("known_hosts", "");
  std::string key = h.string_or("host_key", "strict");
  if (key != "strict" && key != "accept-new") h.fail("host_key", "must be \"strict\" or \"accept-new\"");
  c.accept_new = key == "accept-new";
  c.workdir = h.string_or("workdir", c.workdir);
  c.shell_ahead = h.boolean_or("shell_ahead", true);
  if (c.local && (h.has("user") || h.has("identity") || h.has("known_hosts") || h.has("shell_ahead"))) {
    h.fail_here("ssh settings need an address (this host is local)");
  }
  h.finish();
  return c;
}

}  // namespace

const HostConfig& TestbedConfig::host(const std::string& name) const {
  for (const auto& h : hosts) {
    if (h.name == name) return h;
  }
  throw Error("no host named " + name);
}

bool has_real_testbed(const Config& config) { return config.root().contains("sut"); }

namespace {

Bounds seconds_bounds() {
  return Bounds::positive(kMaxSeconds, fmt::format("must be positive, at most {:g} seconds", kMaxSeconds));
}

Bounds pause_bounds() {
  return Bounds::non_negative(kMaxSeconds,
                              fmt::format("must not be negative, and at most {:g} seconds", kMaxSeconds));
}

// [[hosts]], or one local host when there is none.
std::vector<HostConfig> parse_hosts(ConfigSection& root) {
  std::vector<HostConfig> hosts;
  for (auto& h : root.table_array("hosts")) {
    HostConfig host = parse_host(h);
    for (const auto& o : hosts) {
      if (o.name == host.name) h.fail("name", fmt::format("host '{}' is declared twice", host.name));
    }
    hosts.push_back(host);
  }
  if (hosts.empty()) {
    HostConfig local;
    local.name = "local";
    hosts.push_back(local);
  }
  return hosts;
}

void check_known_host(const TestbedConfig& tb, ConfigSection& s, const std::string& key,
                      const std::string& name) {
  for (const auto& h : tb.hosts) {
    if (h.name == name) return;
  }
  s.fail(key, fmt::format("'{}' is not a [[hosts]] name", name));
}

// ready, ready_command and ready_interval_s: how the SUT says it is up.
void parse_ready(ConfigSection& sut, SutConfig& s, const Config& config) {
  const std::string ready = sut.string_or("ready", "line");
  if (ready == "line")
    s.ready = ReadyKind::kLine;
  else if (ready == "tcp")
    s.ready = ReadyKind::kTcp;
  else if (ready == "command")
    s.ready = ReadyKind::kCommand;
  else
    sut.fail("ready",
             "must be \"line\" (a stdout line starting with ready), \"tcp\" (the port accepts) or "
             "\"command\" (ready_command exits 0)");
  if (s.ready == ReadyKind::kCommand) {
    if (!sut.has("ready_command"))
      sut.fail("ready",
               "ready = \"command\" needs ready_command, the command that exits 0 once the SUT is up");
    s.ready_command = sut.string("ready_command");
    check_template(sut, "ready_command", s.ready_command, config);
    s.ready_interval_s = sut.number_or("ready_interval_s", s.ready_interval_s, seconds_bounds());
  } else {
    for (const char* key : {"ready_command", "ready_interval_s"}) {
      if (sut.has(key))
        sut.fail(key, fmt::format("is only used with ready = \"command\" (ready is \"{}\")", ready));
    }
  }
  s.ready_timeout_s = sut.number_or("ready_timeout_s", s.ready_timeout_s, seconds_bounds());
}

void parse_sut(ConfigSection& root, TestbedConfig& tb, const Config& config) {
  auto sut = root.table("sut");
  if (!sut) root.fail_here("missing [sut] section");
  SutConfig& s = tb.sut;
  s.host = sut->string_or("host", tb.hosts.front().name);
  check_known_host(tb, *sut, "host", s.host);
  s.start = sut->string("start");
  check_template(*sut, "start", s.start, config);
  s.files = parse_sut_files(*sut, config);
  if (sut->has("setup")) {
    s.setup = sut->string_array("setup");
    for (const auto& t : s.setup) check_template(*sut, "setup", t, config);
  }
  parse_ready(*sut, s, config);
  s.port = sut->integer_or("port", s.port, 1, 65535, "must be a TCP port (1-65535)");
  s.address = sut->string_or("address", s.address);
  std::string restart = sut->string_or("restart", "per-sample");
  if (restart == "per-sample")
    s.restart = Restart::kPerSample;
  else if (restart == "per-trial")
    s.restart = Restart::kPerTrial;
  else
    sut->fail("restart", "must be \"per-sample\" or \"per-trial\"");
  s.settle_s = sut->number_or("settle_s", 0, pause_bounds());
  s.stop_grace_s = sut->number_or("stop_grace_s", s.stop_grace_s, pause_bounds());
  check_refserver_arguments(*sut, "start", s.start, config, tb);
  sut->finish();
}

// [workload.output]: JSON pointers into the command generator's output.
JsonOutputMap parse_output_map(ConfigSection& wl) {
  auto out = wl.table("output");
  if (!out)
    wl.fail("command",
            "needs [workload.output]: JSON pointers to the figures in the command's output (completed and "
            "latencies at least)");
  JsonOutputMap m;
  m.format = out->string_or("format", "json");
  if (m.format == "hdr-log") {
    // An HdrHistogram log carries no unit: the user says which the program recorded.
    m.latency_unit = out->string("latency_unit");
    if (m.latency_unit != "ns" && m.latency_unit != "us" && m.latency_unit != "ms" && m.latency_unit != "s")
      out->fail("latency_unit", "must be ns, us, ms or s");
    out->finish();
    return m;
  }
  if (m.format != "json")
    out->fail("format",
              "must be \"json\" (one JSON document, read through JSON pointers) or \"hdr-log\" (an "
              "HdrHistogram interval log)");
  auto pointer = [&](const char* key, bool required) {
    if (!required && !out->has(key)) return std::string();
    std::string p = out->string(key);
    try {
      (void)nlohmann::json::json_pointer(p);
    } catch (const nlohmann::json::exception& e) {
      out->fail(key, fmt::format("is not a JSON pointer such as \"/latency/values\": {}", e.what()));
    }
    if (p.empty()) out->fail(key, "must point into the document (\"/name\"), not be empty");
    return p;
  };
  m.completed = pointer("completed", true);
  m.latencies = pointer("latencies", true);
  m.sent = pointer("sent", false);
  m.errors = pointer("errors", false);
  m.timeouts = pointer("timeouts", false);
  m.achieved_rate = pointer("achieved_rate", false);
  m.latency_unit = out->string_or("latency_unit", m.latency_unit);
  if (m.latency_unit != "ns" && m.latency_unit != "us" && m.latency_unit != "ms" && m.latency_unit != "s")
    out->fail("latency_unit", "must be ns, us, ms or s");
  out->finish();
  return m;
}

// generator and its own keys: the command, the program, [workload.output].
void parse_generator(ConfigSection& wl, WorkloadConfig& w, const Config& config) {
  const std::string generator = wl.string_or("generator", "wbload");
  if (generator == "wbload")
    w.generator = GeneratorKind::kWbload;
  else if (generator == "command")
    w.generator = GeneratorKind::kCommand;
  else if (generator == "pgbench")
    w.generator = GeneratorKind::kPgbench;
  else if (generator == "fio")
    w.generator = GeneratorKind::kFio;
  else
    wl.fail("generator", "must be wbload, command (any program, see docs/generators.md), pgbench or fio");
  if (w.generator != GeneratorKind::kWbload) {
    for (const char* key : {"protocol", "mix", "arrivals"}) {
      if (wl.has(key))
        wl.fail(key, fmt::format("is a wbload setting; generator \"{}\" does not use it", generator));
    }
  }
  std::map<std::string, std::string> values = check_values(config);
  for (const auto& name : generator_run_placeholders()) values[name] = "1";
  auto check = [&](const char* key, const std::string& text) {
    try {
      (void)expand_command_template(text, values);
    } catch (const InputError& e) {
      wl.fail(key, e.what());
    }
  };
  if (w.generator == GeneratorKind::kCommand) {
    if (!wl.has("command"))
      wl.fail("generator",
              "generator = \"command\" needs command, the program and its arguments as a template");
    w.program = wl.string("command");
    check("command", w.program);
    w.output = parse_output_map(wl);
    if (wl.has("program"))
      wl.fail("program", "is for pgbench and fio; a command generator names it in command");
  } else {
    if (wl.has("command"))
      wl.fail("command", fmt::format("is for generator = \"command\", not \"{}\"", generator));
    if (wl.has("output"))
      wl.fail("output", fmt::format("is for generator = \"command\", not \"{}\"", generator));
    if (w.generator != GeneratorKind::kWbload) {
      w.program = wl.string_or("program", generator);
      check("program", w.program);
    } else if (wl.has("program")) {
      wl.fail("program", "wbload is the one next to workbench (or in WB_BIN_DIR)");
    }
  }
  w.trace = wl.boolean_or("trace", false);
  if (w.trace && w.generator != GeneratorKind::kWbload && w.generator != GeneratorKind::kFio)
    wl.fail("trace", "is recorded by wbload (--trace) and fio (its latency logs) only");
  if (wl.has("args")) {
    w.args = wl.string_array("args");
    for (const auto& a : w.args) check("args", a);
    if (w.generator == GeneratorKind::kFio) {
      for (const auto& a : w.args) {
        if (std::string why = fio_owned_option(a); !why.empty()) wl.fail("args", why);
      }
    }
  }
}

// connections (a number, or a template such as "{clients}" when it is a factor) and threads.
void parse_connections(ConfigSection& wl, WorkloadConfig& w, const Config& config) {
  const std::string rule =
      fmt::format("must be from 1 to {} (the generator's connections or clients)", kMaxConnections);
  int fewest = w.connections;
  if (wl.has("connections") && wl.raw("connections")->is_string()) {
    w.connections_template = wl.string("connections");
    // Every level of every factor, one at a time, the others at their first level.
    fewest = kMaxConnections;
    for (const auto& f : config.factors()) {
      for (const auto& level : f.levels) {
        auto values = check_values(config);
        values[f.name] = level;
        try {
          fewest = std::min(fewest, connections_from(w.connections_template, values));
        } catch (const InputError& e) {
          wl.fail("connections", fmt::format("{}={}: {}", f.name, level, e.what()));
        }
      }
    }
    if (config.factors().empty()) fewest = connections_from(w.connections_template, check_values(config));
  } else {
    w.connections = wl.integer_or("connections", w.connections, 1, kMaxConnections, rule);
    fewest = w.connections;
  }
  w.threads = wl.integer_or("threads", w.threads, 1, std::min(kMaxGeneratorThreads, fewest),
                            fmt::format("must be from 1 to {} and at most connections ({}): every generator "
                                        "thread needs a connection",
                                        kMaxGeneratorThreads, fewest));
}

void parse_workload(ConfigSection& root, TestbedConfig& tb, const Config& config) {
  WorkloadConfig& w = tb.workload;
  auto wl = root.table("workload");
  if (!wl) root.fail_here("missing [workload] section (the load generator's settings)");
  parse_generator(*wl, w, config);
  w.hosts = wl->has("hosts") ? wl->string_array("hosts") : std::vector<std::string>{tb.hosts.front().name};
  if (w.hosts.empty()) wl->fail("hosts", "needs at least one generator host");
  for (const auto& h : w.hosts) check_known_host(tb, *wl, "hosts", h);
  w.protocol = wl->string_or("protocol", w.protocol);
  if (w.protocol != "rpc" && w.protocol != "http" && w.protocol != "redis" && w.protocol != "memcached") {
    wl->fail("protocol", "must be rpc, http, redis or memcached");
  }
  w.target = wl->string_or("target", w.target);
  check_template(*wl, "target", w.target, config);
  w.mix = wl->string_or("mix", "");
  if (!w.mix.empty()) check_template(*wl, "mix", w.mix, config);
  parse_connections(*wl, w, config);
  w.arrivals = wl->string_or("arrivals", w.arrivals);
  if (w.arrivals != "poisson" && w.arrivals != "constant")
    wl->fail("arrivals", "must be poisson or constant");
  w.warmup_s = wl->number_or("warmup_s", w.warmup_s, pause_bounds());
  // wbload takes --timeout from 1 ms.
  w.timeout_s = wl->number_or(
      "timeout_s", w.timeout_s,
      {1e-3, kMaxTimeoutSeconds, false, false,
       fmt::format("must be a number of seconds from 0.001 to {:g} (per request)", kMaxTimeoutSeconds)});
  w.overhead_s = wl->number_or("overhead_s", 0, pause_bounds());
  if (wl->has("cpus")) {
    w.cpus = wl->string("cpus");
    check_template(*wl, "cpus", w.cpus, config);
    // Every level of every factor, one at a time (the others at their first level), as with
    // connections: a search must not stop at its first sample with a bad list.
    auto check = [&](const std::map<std::string, std::string>& values, const std::string& where) {
      try {
        (void)cpu_list_from(w.cpus, values);
      } catch (const InputError& e) {
        wl->fail("cpus", where.empty() ? e.what() : fmt::format("{}: {}", where, e.what()));
      }
    };
    if (w.cpus.find('{') == std::string::npos) check(check_values(config), "");
    for (const auto& f : config.factors()) {
      if (w.cpus.find("{" + f.name + "}") == std::string::npos) continue;
      for (const auto& level : f.levels) {
        auto values = check_values(config);
        values[f.name] = level;
        check(values, fmt::format("{}={}", f.name, level));
      }
    }
  }
  w.deadline_slack_s = wl->number_or(
      "deadline_slack_s", w.deadline_slack_s,
      Bounds::positive(kMaxSeconds,
                       fmt::format("must be a positive number of seconds, at most {:g}", kMaxSeconds)));
  wl->finish();
}

}  // namespace

std::string cpu_list_from(const std::string& cpus_template,
                          const std::map<std::string, std::string>& values) {
  static const std::regex kList(R"(\d+(-\d+)?(,\d+(-\d+)?)*)");
  const auto words = expand_command_template(cpus_template, values);
  if (words.size() == 1 && std::regex_match(words.front(), kList)) return words.front();
  throw InputError(
      fmt::format("'{}' is not a CPU list as taskset --cpu-list takes it (e.g. \"1\" or \"0-1,3\")",
                  words.size() == 1 ? words.front() : shell_join(words)));
}

int connections_from(const std::string& connections_template,
                     const std::map<std::string, std::string>& values) {
  auto words = expand_command_template(connections_template, values);
  int n = 0;
  const std::string& w = words.front();
  auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), n);
  if (words.size() != 1 || ec != std::errc() || end != w.data() + w.size() || n < 1 || n > kMaxConnections)
    throw InputError(fmt::format("connections '{}' gives '{}', not a whole number from 1 to {}",
                                 connections_template, shell_join(words), kMaxConnections));
  return n;
}

int WorkloadConfig::connections_for(const std::map<std::string, std::string>& values) const {
  return connections_template.empty() ? connections : connections_from(connections_template, values);
}

TestbedConfig parse_testbed(const Config& config) {
  TestbedConfig tb;
  ConfigSection root(config.root(), config.file(), "");
  tb.hosts = parse_hosts(root);
  parse_sut(root, tb, config);
  parse_workload(root, tb, config);
  return tb;
}

std::map<std::string, std::string> template_values(const Config& config, const TestbedConfig& tb,
                                                   const Sample& sample,
                                                   const std::map<std::string, std::string>& programs) {
  std::map<std::string, std::string> v(sample.values().begin(), sample.values().end());
  for (const auto& [k, p] : programs) v[k] = p;
  v["port"] = std::to_string(tb.sut.port);
  v["sut_address"] = tb.sut.address;
  std::filesystem::path dir = std::filesystem::absolute(config.file()).parent_path();
  v["config_dir"] = dir.string();
  v["source"] = dir.parent_path().string();
  return v;
}

}  // namespace wb
