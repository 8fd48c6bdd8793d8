#pragma once
// Config values that parse as TOML but no trial can run with, each with the file:line:key its
// error must name: shared by the unit test of Config::load/parse_testbed and the test of the
// workbench binary. Every case is kBase with one line replaced (or a line added); kBase itself is
// valid: a refserver testbed that also has [sim], [model] and [probing], so every section is read.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace wb::test {

inline const char* const kBase = R"([testbed]
name = "values"
store = "values.db"

[factors.disks]
levels = [1, 2, 4]
default = 2

[factors.threads]
levels = [1, 2, 4, 8]
default = 4

[factors.io]
levels = [1, 2]

[factors.mix]
kind = "workload"
levels = ["db_tp", "web"]

[peak]
r_sat_ms = 8
width = 0.1
start_rate = 100
runlength_s = 3
max_trials = 30
min_trials = 2
budget_s = 600
look_growth = 1.5
linear_step = 10
max_runlength_s = 600
seed_step = 1.25

[[hosts]]
name = "local"
port = 22

[sut]
host = "local"
start = "{refserver} --port {port} --threads {threads} --disks {disks} --io-threads {io} --cpu-ms 0.2"
ready = "line"
ready_timeout_s = 15
settle_s = 0
port = 7499

[workload]
hosts = ["local"]
protocol = "rpc"
target = "127.0.0.1:{port}"
connections = 16
threads = 1
warmup_s = 1
timeout_s = 5
overhead_s = 0
deadline_slack_s = 30

[probing]
tolerance = 0.15
poll_s = 60
radius = 2

[sim]
warmup_s = 10
overhead_s = 0
seed = 1

[[sim.center]]
name = "workers"
kind = "pool"
servers = "{threads}"

[[sim.center]]
name = "disk"
servers = "{disks}"
service_ms = 5
visits = 1
within = "workers"

[model.attributes.mix]
disk_ms = { db_tp = 4.86, web = 1.5 }

[[model.center]]
name = "workers"
kind = "pool"
servers = "{threads}"

[[model.center]]
name = "disk"
servers = "{disks}"
service_ms = "{disk_ms}"
within = "workers"
cv = 1
)";

struct BadValue {
  BadValue(std::string f, std::string t, std::string k, std::string a = "")
      : from(std::move(f)), to(std::move(t)), key(std::move(k)), at(std::move(a)) {}
  std::string from;  // text of kBase that occurs once, from the start of a line
  std::string to;    // what replaces it
  std::string key;   // the key the error names
  std::string at;    // text that occurs once, on the line the error names (empty: `from`'s first line)
};

// The line of [sim]'s disk servers, which the levels of disks must suit.
inline const char* const kSimDiskServers = "servers = \"{disks}\"\nservice_ms = 5";

// The issue's values first, then more of each class: NaN, ±inf, overflow, out of range, and
// factor levels that a use as a count of servers or a refserver flag cannot run.
inline std::vector<BadValue> bad_values() {
  return {
      {"start_rate = 100", "start_rate = inf", "peak.start_rate"},
      {"start_rate = 100", "start_rate = 1e12", "peak.start_rate"},
      {"runlength_s = 3", "runlength_s = inf", "peak.runlength_s"},
      {"warmup_s = 10", "warmup_s = inf", "sim.warmup_s"},
      {"warmup_s = 10", "warmup_s = nan", "sim.warmup_s"},
      {"connections = 16", "connections = 4294967297", "workload.connections"},
      {"levels = [1, 2, 4]", "levels = [0, 1, 2]", "sim.center[1].servers", kSimDiskServers},
      {"levels = [1, 2, 4]", "levels = [1, 1.5, 2]", "sim.center[1].servers", kSimDiskServers},
      // NaN and infinities.
      {"start_rate = 100", "start_rate = nan", "peak.start_rate"},
      {"runlength_s = 3", "runlength_s = nan", "peak.runlength_s"},
      {"r_sat_ms = 8", "r_sat_ms = nan", "peak.r_sat_ms"},
      {"width = 0.1", "width = nan", "peak.width"},
      {"budget_s = 600", "budget_s = nan", "peak.budget_s"},
      {"budget_s = 600", "budget_s = inf", "peak.budget_s"},
      {"look_growth = 1.5", "look_growth = inf", "peak.look_growth"},
      {"linear_step = 10", "linear_step = inf", "peak.linear_step"},
      {"max_runlength_s = 600", "max_runlength_s = inf", "peak.max_runlength_s"},
      {"seed_step = 1.25", "seed_step = nan", "peak.seed_step"},
      {"overhead_s = 0\nseed = 1", "overhead_s = -inf\nseed = 1", "sim.overhead_s"},
      {"service_ms = 5", "service_ms = nan", "sim.center[1].service_ms"},
      {"visits = 1", "visits = inf", "sim.center[1].visits"},
      {"cv = 1", "cv = nan", "model.center[1].cv"},
      {"disk_ms = { db_tp = 4.86, web = 1.5 }", "disk_ms = { db_tp = nan, web = 1.5 }",
       "model.attributes.mix.disk_ms.db_tp"},
      {"levels = [1, 2, 4]", "levels = [1, 2, inf]", "factors.disks.levels"},
      {"ready_timeout_s = 15", "ready_timeout_s = nan", "sut.ready_timeout_s"},
      {"settle_s = 0", "settle_s = inf", "sut.settle_s"},
      {"warmup_s = 1\n", "warmup_s = nan\n", "workload.warmup_s"},
      {"timeout_s = 5", "timeout_s = inf", "workload.timeout_s"},
      {"overhead_s = 0\ndeadline", "overhead_s = nan\ndeadline", "workload.overhead_s"},
      {"deadline_slack_s = 30", "deadline_slack_s = inf", "workload.deadline_slack_s"},
      {"tolerance = 0.15", "tolerance = nan", "probing.tolerance"},
      {"poll_s = 60", "poll_s = inf", "probing.poll_s"},
      // Whole numbers beyond their type.
      {"max_trials = 30", "max_trials = 4294967297", "peak.max_trials"},
      {"min_trials = 2", "min_trials = 4294967298", "peak.min_trials"},
      {"seed = 1", "seed = -1", "sim.seed"},
      {"port = 7499", "port = 4294967297", "sut.port"},
      {"port = 22", "port = 4294967318", "hosts[0].port"},
      {"threads = 1", "threads = 4294967297", "workload.threads"},
      {"radius = 2", "radius = 4294967298", "probing.radius"},
      // Out of range: rates and times no trial can run, counts no generator has.
      {"start_rate = 100", "start_rate = 0", "peak.start_rate"},
      {"start_rate = 100", "start_rate = -5", "peak.start_rate"},
      {"runlength_s = 3", "runlength_s = 0", "peak.runlength_s"},
      {"runlength_s = 3", "runlength_s = 1e300", "peak.runlength_s"},
      {"linear_step = 10", "linear_step = 1e9", "peak.linear_step"},
      {"connections = 16", "connections = 0", "workload.connections"},
      {"threads = 1", "threads = 17", "workload.threads"},
      {"timeout_s = 5", "timeout_s = 0", "workload.timeout_s"},
      {"timeout_s = 5", "timeout_s = 1e9", "workload.timeout_s"},
      {"overhead_s = 0\ndeadline", "overhead_s = -1\ndeadline", "workload.overhead_s"},
      // Levels as counts: servers of [sim]/[model] centers, refserver's flags in [sut] start.
      {"servers = \"{threads}\"\n\n[[sim.center]]", "servers = \"{threads} / 3\"\n\n[[sim.center]]",
       "sim.center[0].servers"},
      {"service_ms = 5", "service_ms = \"{disks} - 2\"", "sim.center[1].service_ms"},
      {"levels = [1, 2]", "levels = [0, 1]", "sut.start", "start = "},
      {"levels = [1, 2]", "levels = [1, 2.5]", "sut.start", "start = "},
      {"levels = [1, 2]", "levels = [1, 65]", "sut.start", "start = "},
      {"--cpu-ms 0.2\"", "--cpu-ms 0.2 --slow-disk 3:2\"", "sut.start"},
      {"--cpu-ms 0.2\"", "--cpu-ms 0.2 --disk-count 2\"", "sut.start"},
  };
}

// kBase with `c` applied; `line` is set to the line the error must name.
inline std::string apply(const BadValue& c, int* line) {
  std::string text = kBase;
  auto once = [&](const std::string& what) {
    const auto at = text.find(what);
    return at != std::string::npos && text.find(what, at + 1) == std::string::npos ? at : std::string::npos;
  };
  const std::string& on_line = c.at.empty() ? c.from : c.at;
  const auto from = once(c.from), at = once(on_line);
  if (from == std::string::npos || at == std::string::npos) return "";
  *line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  return text.replace(from, c.from.size(), c.to);
}

}  // namespace wb::test
