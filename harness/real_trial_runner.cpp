#include "harness/real_trial_runner.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "harness/shell_quote.hpp"
#include "harness/sut_files.hpp"
#include "harness/sut_stage_stats.hpp"
#include "models/io_trace.hpp"
#include "workloads/result.hpp"

namespace wb {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

// True once something accepts TCP connections at address:port (from this machine).
bool tcp_accepts(const std::string& address, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return false;
  bool ok = false;
  for (addrinfo* a = res; a != nullptr && !ok; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    ok = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  freeaddrinfo(res);
  return ok;
}

}  // namespace

struct RealTrialRunner::Host {
  const HostConfig* config = nullptr;
  std::unique_ptr<Executor> executor;
  std::map<std::string, std::string> programs;  // refserver, wbload -> path on this host
  std::map<std::string, std::string> uploaded;  // local mix file -> path on this host
};

RealTrialRunner::RealTrialRunner(const Config& config, TestbedConfig testbed, RealRunnerOptions options)
    : config_(config), testbed_(std::move(testbed)), options_(std::move(options)) {
  if (testbed_.workload.generator != GeneratorKind::kWbload)
    adapter_ = make_generator_adapter(testbed_.workload);
}

RealTrialRunner::~RealTrialRunner() { stop_sut(); }

RealTrialRunner::Host& RealTrialRunner::host(const std::string& name) {
  for (auto& h : hosts_) {
    if (h->config->name == name) return *h;
  }
  auto h = std::make_unique<Host>();
  h->config = &testbed_.host(name);
  if (options_.log) options_.log(fmt::format("connecting to host {}", name));
  h->executor = options_.connect ? options_.connect(*h->config) : connect_host(*h->config);
  if (options_.registry != nullptr)
    h->executor = make_recording_executor(std::move(h->executor), *options_.registry);
  if (h->config->local) {
    h->programs = {{"refserver", options_.programs.refserver}, {"wbload", options_.programs.wbload}};
  } else {
    const std::string& dir = h->config->workdir;
    CommandResult mk = h->executor->run(CommandSpec{{"mkdir", "-p", dir}, {}, {}, 30s});
    if (!mk.ok()) throw Error(fmt::format("host {}: cannot create {}: {}", name, dir, output_tail(mk.err)));
    for (const auto& [prog, local] : std::map<std::string, std::string>{
             {"refserver", options_.programs.refserver}, {"wbload", options_.programs.wbload}}) {
      std::string remote = fmt::format("{}/{}", dir, prog);
      if (ensure_binary(*h->executor, local, remote) && options_.log) {
        options_.log(fmt::format("uploaded {} to {}:{}", prog, name, remote));
      }
      h->programs[prog] = remote;
    }
  }
  hosts_.push_back(std::move(h));
  return *hosts_.back();
}

void RealTrialRunner::prepare() {
  host(testbed_.sut.host);
  for (const auto& g : testbed_.workload.hosts) host(g);
}

std::map<std::string, std::string> RealTrialRunner::values_for(Host& h, const Sample& sample) {
  return template_values(config_, testbed_, sample, h.programs);
}

void RealTrialRunner::stop_sut() noexcept {
  if (!sut_) return;
  try {
    sut_->stop(ms(testbed_.sut.stop_grace_s));
  } catch (...) {  // stopping is best effort here; the process group is gone or unreachable
  }
  sut_.reset();
  sut_sample_.reset();
}

void RealTrialRunner::start_sut(const Sample& sample) {
  stop_sut();
  Host& h = host(testbed_.sut.host);
  auto values = values_for(h, sample);
  for (const auto& f : testbed_.sut.files) write_sut_file(*h.executor, h.config->name, f, values);
  for (const auto& t : testbed_.sut.setup) {
    CommandResult r = h.executor->run(CommandSpec{expand_command_template(t, values), {}, {}, 120s});
    if (!r.ok()) {
      throw Error(fmt::format("SUT setup on {} failed (exit {}): {}: {}", h.config->name, r.exit_status,
                              shell_join(expand_command_template(t, values)), output_tail(r.err)));
    }
  }
  CommandSpec spec{expand_command_template(testbed_.sut.start, values), {}, {}, 0ms};
  if (options_.log) options_.log(fmt::format("starting SUT for {}: {}", sample.key(), shell_join(spec.argv)));
  sut_ = h.executor->start(spec);
  try {
    wait_ready(h, values);
  } catch (...) {
    stop_sut();
    throw;
  }
  sut_sample_ = sample;
  if (testbed_.sut.settle_s > 0) std::this_thread::sleep_for(ms(testbed_.sut.settle_s));
}

void RealTrialRunner::wait_ready(Host& h, const std::map<std::string, std::string>& values) {
  const SutConfig& s = testbed_.sut;
  auto deadline = Clock::now() + ms(s.ready_timeout_s);
  if (s.ready == ReadyKind::kCommand) {
    // Run the probe on the SUT's host until it exits 0; each run may use the time left, and the
    // pause between runs watches the SUT so one that dies is reported at once.
    const std::vector<std::string> argv = expand_command_template(s.ready_command, values);
    const std::string shown = shell_join(argv);
    int runs = 0;
    std::string last = "never ran";
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left <= 0ms) break;
      CommandResult r = h.executor->run(CommandSpec{argv, {}, {}, left});
      ++runs;
      if (r.ok()) return;
      if (!r.timed_out && (r.exit_status == 126 || r.exit_status == 127)) {  // polling cannot help
        throw Error(fmt::format("the ready command `{}` cannot run on {} (exit {}): {}", shown,
                                h.config->name, r.exit_status, output_tail(r.err, 200)));
      }
      last = r.timed_out ? "cut off at the deadline"
                         : fmt::format("exit {}{}{}", r.exit_status,
                                       r.exit_signal ? ", signal " + *r.exit_signal : "",
                                       r.err.empty() ? "" : ": " + output_tail(r.err, 200));
      left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left <= 0ms) break;
      if (auto d = sut_->wait(std::min(left, ms(s.ready_interval_s)))) {
        throw Error(fmt::format("SUT on {} exited before its ready command succeeded (exit {}): {}",
                                h.config->name, d->exit_status, output_tail(d->err)));
      }
    }
    throw Error(fmt::format(
        "SUT on {} was not ready within {:g} s: the ready command `{}` did not exit 0 ({} run(s), last: {}); "
        "check the command or raise [sut] ready_timeout_s: {}",
        h.config->name, s.ready_timeout_s, shown, runs, last, sut_->describe()));
  }
  if (s.ready == ReadyKind::kLine) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left <= 0ms) break;
      std::optional<std::string> line;
      try {
        line = sut_->read_line(left);
      } catch (const Error&) {
        break;  // no line in time
      }
      if (!line) {
        auto r = sut_->wait(1s);
        throw Error(fmt::format("SUT on {} exited before it was ready (exit {}): {}", h.config->name,
                                r ? r->exit_status : -1, r ? output_tail(r->err) : ""));
      }
      if (line->rfind("ready", 0) == 0) return;
    }
  } else {
    while (Clock::now() < deadline) {
      if (tcp_accepts(s.address, s.port)) return;
      if (auto r = sut_->wait(100ms)) {
        throw Error(fmt::format("SUT on {} exited before it accepted connections (exit {}): {}",
                                h.config->name, r->exit_status, output_tail(r->err)));
      }
    }
  }
  throw Error(fmt::format("SUT on {} was not ready within {:g} s ({}): {}", h.config->name, s.ready_timeout_s,
                          s.ready == ReadyKind::kLine
                              ? "no line starting with 'ready' on stdout"
                              : fmt::format("nothing accepted {}:{}", s.address, s.port),
                          sut_->describe()));
}

std::optional<nlohmann::json> RealTrialRunner::sut_stats(bool reset) {
  try {
    return fetch_refserver_stats(testbed_.sut.address, testbed_.sut.port, reset, 2000ms);
  } catch (const Error& e) {
    if (options_.log) options_.log(fmt::format("no stage times for this trial: {}", e.what()));
    return std::nullopt;
  }
}

// Where wbload writes this generator's trace on its host; the runner reads and removes it.
std::string RealTrialRunner::trace_path(const Host& h, std::uint64_t trial_index,
                                        std::size_t generator_index) const {
  const std::string name = fmt::format("wb-trace-{}-{}-{}.csv", ::getpid(), trial_index, generator_index);
  return h.config->local ? (fs::temp_directory_path() / name).string() : h.config->workdir + "/" + name;
}

std::vector<std::string> RealTrialRunner::wbload_argv(Host& h, const Sample& sample, double rate,
                                                      double runlength_s, std::uint64_t trial_index,
                                                      std::size_t generator_index) {
  const WorkloadConfig& w = testbed_.workload;
  auto values = values_for(h, sample);
  auto one = [&](const std::string& t) {
    auto words = expand_command_template(t, values);
    if (words.size() != 1) throw InputError(fmt::format("[workload] '{}' must expand to one word", t));
    return words.front();
  };
  std::vector<std::string> argv{h.programs.at("wbload"),
                                "--protocol",
                                w.protocol,
                                "--target",
                                one(w.target),
                                "--rate",
                                fmt::format("{:.6f}", rate),
                                "--duration",
                                fmt::format("{:g}", runlength_s),
                                "--warmup",
                                fmt::format("{:g}", w.warmup_s),
                                "--connections",
                                std::to_string(w.connections_for(values)),
                                "--threads",
                                std::to_string(w.threads),
                                "--arrivals",
                                w.arrivals,
                                "--timeout",
                                fmt::format("{:g}", w.timeout_s),
                                "--seed",
                                std::to_string(options_.seed * 1000003 + trial_index * 101 + generator_index),
                                "--json"};
  if (!w.mix.empty()) {
    std::string local = one(w.mix);
    std::string path = local;
    if (!h.config->local) {
      auto it = h.uploaded.find(local);
      if (it == h.uploaded.end()) {
        std::string remote = h.config->workdir + "/" + fs::path(local).filename().string();
        h.executor->upload(local, remote, 0644);
        it = h.uploaded.emplace(local, remote).first;
      }
      path = it->second;
    }
    argv.insert(argv.end(), {"--mix", path});
  }
  if (w.trace) argv.insert(argv.end(), {"--trace", trace_path(h, trial_index, generator_index)});
  for (const auto& a : w.args) {
    for (auto& word : expand_command_template(a, values)) argv.push_back(word);
  }
  return argv;
}

std::vector<std::string> RealTrialRunner::pinned(Host& h, const Sample& sample,
                                                 std::vector<std::string> argv) {
  const WorkloadConfig& w = testbed_.workload;
  if (w.cpus.empty()) return argv;
  std::string list;
  try {
    list = cpu_list_from(w.cpus, values_for(h, sample));
  } catch (const InputError& e) {
    throw InputError(fmt::format("[workload] cpus for {}: {}", sample.key(), e.what()));
  }
  // taskset sets the affinity and execs the generator: the same process, group and deadline.
  argv.insert(argv.begin(), {"taskset", "--cpu-list", list});
  return argv;
}

GeneratorRun RealTrialRunner::generator_run(Host& h, const Sample& sample, double rate, double runlength_s,
                                            std::uint64_t trial_index, std::size_t generator_index) {
  const WorkloadConfig& w = testbed_.workload;
  GeneratorRun run;
  run.values = values_for(h, sample);
  auto words = expand_command_template(w.target, run.values);
  if (words.size() != 1)
    throw InputError(fmt::format("[workload] target '{}' must expand to one word", w.target));
  run.target = words.front();
  if (w.generator != GeneratorKind::kCommand) {
    words = expand_command_template(w.program, run.values);
    if (words.size() != 1)
      throw InputError(fmt::format("[workload] program '{}' must expand to one word", w.program));
    run.program = words.front();
  }
  run.rate = rate;
  run.duration_s = runlength_s;
  run.warmup_s = w.warmup_s;
  run.timeout_s = w.timeout_s;
  run.connections = w.connections_for(run.values);
  run.threads = w.threads;
  run.seed = options_.seed * 1000003 + trial_index * 101 + generator_index;
  if (w.trace && w.generator == GeneratorKind::kFio) {
    run.trace_prefix = trace_path(h, trial_index, generator_index);
    run.trace_prefix.resize(run.trace_prefix.size() - 4);  // no ".csv": fio adds _lat.<job>.log
  }
  add_run_values(run);
  return run;
}

struct RealTrialRunner::Generator {
  Host* host;
  std::unique_ptr<Process> process;
  std::optional<CommandResult> result;
  std::optional<GeneratorRun> run;  // adapted generators: what it was asked
};

std::vector<RealTrialRunner::Generator> RealTrialRunner::run_generators(const Sample& sample, double share,
                                                                        double runlength_s,
                                                                        std::uint64_t trial_index,
                                                                        double limit_s) {
  const WorkloadConfig& w = testbed_.workload;
  std::vector<Generator> gens;
  auto stop_all = [&]() noexcept {
    for (auto& g : gens) {
      if (g.process && !g.result) {
        try {
          g.process->stop();
        } catch (...) {  // best effort while failing
        }
      }
    }
  };
  try {
    for (std::size_t i = 0; i < w.hosts.size(); ++i) {
      Host& h = host(w.hosts[i]);
      if (adapter_) {
        GeneratorRun run = generator_run(h, sample, share, runlength_s, trial_index, i);
        CommandSpec spec{
            pinned(h, sample, adapter_->argv(run)), {}, {}, ms(limit_s + adapter_->extra_time_s(run))};
        gens.push_back(Generator{&h, h.executor->start(spec), std::nullopt, std::move(run)});
      } else {
        CommandSpec spec{pinned(h, sample, wbload_argv(h, sample, share, runlength_s, trial_index, i)),
                         {},
                         {},
                         ms(limit_s)};
        gens.push_back(Generator{&h, h.executor->start(spec), std::nullopt, std::nullopt});
      }
    }
    for (;;) {
      bool all = true;
      for (auto& g : gens) {
        if (!g.result) g.result = g.process->wait(100ms);
        all = all && g.result.has_value();
      }
      if (all) return gens;
      if (options_.interrupted && options_.interrupted()) {
        stop_all();
        stop_sut();
        throw Interrupted();
      }
    }
  } catch (const Interrupted&) {
    throw;
  } catch (...) {
    stop_all();
    stop_sut();
    throw;
  }
}

std::vector<LoadResult> RealTrialRunner::gather(const std::vector<Generator>& gens, double share,
                                                double runlength_s, double limit_s) {
  const WorkloadConfig& w = testbed_.workload;
  std::vector<LoadResult> parts;
  const std::string program = generator_name(w.generator);
  for (const auto& g : gens) {
    const CommandResult& r = *g.result;
    std::string where = g.host->config->name;
    if (r.timed_out) {
      stop_sut();
      throw Error(fmt::format(
          "{} on {} passed the trial's deadline: still running {:g} s after its start (warm-up {:g} + "
          "runlength {:g} + timeout_s {:g} + deadline_slack_s {:g}); its process group was killed",
          program, where, limit_s, w.warmup_s, runlength_s, w.timeout_s, w.deadline_slack_s));
    }
    if (!r.ok()) {
      stop_sut();
      throw Error(fmt::format("{} on {} failed (exit {}{}): {}", program, where, r.exit_status,
                              r.exit_signal ? ", signal " + *r.exit_signal : "", output_tail(r.err)));
    }
    try {
      parts.push_back(adapter_ ? adapter_->parse(r.out, *g.run) : parse_result(r.out));
    } catch (const std::exception& e) {
      stop_sut();
      throw Error(fmt::format("{} on {} printed an unreadable or impossible result: {} (output: {})", program,
                              where, e.what(), output_tail(r.out, 120)));
    }
    // Checked against what the program's schedule offers, which its rounding may set apart from
    // the share asked (the trial keeps the asked rate: the search's loads are those).
    const double offered = adapter_ ? adapter_->offered_rate(*g.run) : share;
    if (options_.log && std::fabs(offered - share) > 0.01 * share)
      options_.log(fmt::format("{} on {} offers {:.1f}/s for the {:.1f}/s asked (its own rate rounding)",
                               program, where, offered, share));
    try {
      check_result(parts.back(), LoadRequest{offered, runlength_s, w.warmup_s, w.timeout_s});
    } catch (const InputError& e) {
      stop_sut();
      throw Error(fmt::format("{} on {} printed an impossible result: {}", program, where, e.what()));
    }
    if (options_.log && gens.size() > 1) {
      const LoadResult& p = parts.back();
      options_.log(fmt::format("{} on {}: offered {:.3f}/s, sent {}, completed {}, errors {}", program, where,
                               p.offered_rate, p.sent, p.completed, p.error_total() + p.timeouts));
    }
  }
  return parts;
}

namespace {

// The trial as the search sees it, from the generators' merged result.
TrialResult trial_from(const LoadResult& m, double rate, double runlength_s) {
  TrialResult t;
  t.offered_rate = rate;
  t.achieved_rate = m.achieved_rate;
  t.runlength_s = runlength_s;
  t.completed = m.completed;
  t.errors = m.error_total() + m.timeouts;
  t.sent = t.completed + t.errors;  // the offered count: every intended request is one of these
  const LatencyHistogram& hist = m.histogram;
  t.mean_ms = hist.mean_ns() / 1e6;
  t.p50_ms = static_cast<double>(hist.percentile_ns(50)) / 1e6;
  t.p90_ms = static_cast<double>(hist.percentile_ns(90)) / 1e6;
  t.p95_ms = static_cast<double>(hist.percentile_ns(95)) / 1e6;
  t.p99_ms = static_cast<double>(hist.percentile_ns(99)) / 1e6;
  t.max_ms = static_cast<double>(hist.max_ns()) / 1e6;
  return t;
}

}  // namespace

namespace {

// The file fio's jobs share when [workload] args say --filename=X (as written there), or "".
std::string fio_filename(const WorkloadConfig& w) {
  for (const auto& a : w.args) {
    if (a.rfind("--filename=", 0) == 0) return a.substr(11);
  }
  return "";
}

// fio's per-job latency logs as the runner's shell loop prints them ("== PATH" then the log): one
// file name for all jobs when [workload] args name one (--filename=...), else one per job.
std::vector<IoOp> fio_trace_ops(const std::string& out, const std::string& host,
                                const std::string& filename) {
  std::vector<IoOp> ops;
  std::istringstream in(out);
  std::string line, current, body;
  auto flush = [&] {
    if (current.empty()) return;
    const auto dot = current.rfind(".log");
    const auto job_dot = current.rfind('.', dot - 1);
    const std::string job = current.substr(job_dot + 1, dot - job_dot - 1);
    std::istringstream log(body);
    auto part = read_fio_lat_log(log, host + ":" + current, filename.empty() ? "job" + job : filename);
    ops.insert(ops.end(), part.begin(), part.end());
  };
  while (std::getline(in, line)) {
    if (line.rfind("== ", 0) == 0) {
      flush();
      current = line.substr(3);
      body.clear();
    } else {
      body += line + "\n";
    }
  }
  flush();
  return ops;
}

}  // namespace

// A failed trial's traces, best effort: nothing of them is kept.
void RealTrialRunner::remove_traces(std::uint64_t trial_index) noexcept {
  const WorkloadConfig& w = testbed_.workload;
  for (std::size_t i = 0; i < w.hosts.size(); ++i) {
    try {
      Host& h = host(w.hosts[i]);
      const std::string path = trace_path(h, trial_index, i);
      const std::string prefix = path.substr(0, path.size() - 4);
      (void)h.executor->run(
          CommandSpec{{"sh", "-c", "rm -f \"$1\" \"$2\"_lat.*.log \"$2\"_clat.*.log \"$2\"_slat.*.log", "sh",
                       path, prefix},
                      {},
                      {},
                      30s});
    } catch (...) {  // the host may be what failed
    }
  }
}

std::string RealTrialRunner::collect_traces(const std::vector<LoadResult>& parts, std::uint64_t trial_index) {
  const WorkloadConfig& w = testbed_.workload;
  std::string merged;
  std::size_t ops = 0;
  for (std::size_t i = 0; i < w.hosts.size(); ++i) {
    Host& h = host(w.hosts[i]);
    const std::string path = trace_path(h, trial_index, i);
    const bool fio = w.generator == GeneratorKind::kFio;
    const std::string program = generator_name(w.generator);
    CommandResult r;
    if (fio) {
      // Each job's log, headed by its name; then every log fio wrote for this run goes.
      const std::string prefix = path.substr(0, path.size() - 4);
      r = h.executor->run(CommandSpec{
          {"sh", "-c",
           "for f in \"$1\"_lat.*.log; do [ -e \"$f\" ] || exit 3; echo \"== $f\"; cat \"$f\"; done", "sh",
           prefix},
          {},
          {},
          60s});
      (void)h.executor->run(CommandSpec{
          {"sh", "-c", "rm -f \"$1\"_lat.*.log \"$1\"_clat.*.log \"$1\"_slat.*.log", "sh", prefix},
          {},
          {},
          30s});
    } else {
      r = h.executor->run(CommandSpec{{"cat", path}, {}, {}, 60s});
      (void)h.executor->run(CommandSpec{{"rm", "-f", path}, {}, {}, 30s});
    }
    if (!r.ok()) {
      stop_sut();
      throw Error(
          fmt::format("{} on {} left no trace at {}: {}", program, h.config->name, path, output_tail(r.err)));
    }
    std::vector<IoOp> got;
    try {
      got = fio ? fio_trace_ops(r.out, h.config->name, fio_filename(w)) : [&] {
        std::istringstream in(r.out);
        return read_io_trace(in, fmt::format("{}:{}", h.config->name, path));
      }();
    } catch (const InputError& e) {
      stop_sut();
      throw Error(fmt::format("{} on {} wrote an unreadable trace: {}", program, h.config->name, e.what()));
    }
    if (fio) {
      std::ostringstream csv;
      write_io_trace(csv, got);
      r.out = csv.str();
    }
    // Counted operations only: never more than the part says were sent.
    if (got.size() > parts[i].sent) {
      stop_sut();
      throw Error(fmt::format("{} on {} traced {} operations but sent {}", program, h.config->name,
                              got.size(), parts[i].sent));
    }
    ops += got.size();
    const std::size_t body = merged.empty() ? 0 : r.out.find('\n') + 1;
    merged.append(r.out, body, std::string::npos);
  }
  if (options_.log) options_.log(fmt::format("trace: {} operations", ops));
  return merged;
}

TrialResult RealTrialRunner::run(const Sample& sample, double rate, double runlength_s,
                                 std::uint64_t trial_index) {
  auto started = Clock::now();
  if (testbed_.sut.restart == Restart::kPerTrial || !sut_ || sut_sample_ != sample) start_sut(sample);
  const WorkloadConfig& w = testbed_.workload;
  const double share = rate / static_cast<double>(w.hosts.size());
  // The generator's deadline: by then it should have sent its last request and waited out the
  // last request's timeout; the slack covers its start (connections, a slow host).
  const double limit_s = w.warmup_s + runlength_s + w.timeout_s + w.deadline_slack_s;
  // The counters start at zero with this trial's load (not the previous trial's, nor the wait
  // for readiness).
  const bool stages = sut_reports_stages(testbed_) && sut_stats(true).has_value();
  std::vector<LoadResult> parts;
  try {
    parts =
        gather(run_generators(sample, share, runlength_s, trial_index, limit_s), share, runlength_s, limit_s);
  } catch (...) {
    if (w.trace) remove_traces(trial_index);
    throw;
  }
  if (auto dead = sut_->wait(0ms)) {
    std::string why = output_tail(dead->err);
    sut_.reset();
    sut_sample_.reset();
    throw Error(fmt::format("the SUT exited during the trial (exit {}): {}", dead->exit_status, why));
  }
  TrialResult t = trial_from(merge_results(parts), rate, runlength_s);
  if (w.trace) t.io_trace = collect_traces(parts, trial_index);
  if (stages) {
    if (auto stats = sut_stats(false)) {
      try {
        t.stage_ms = stage_means_from_refserver_stats(*stats);
      } catch (const Error& e) {
        if (options_.log) options_.log(fmt::format("no stage times for this trial: {}", e.what()));
      }
    }
  }
  t.cost_s = std::chrono::duration<double>(Clock::now() - started).count() + w.overhead_s;
  try {
    check_trial(t);
  } catch (const Error& e) {
    stop_sut();
    throw Error(fmt::format("the generators' merged result is impossible: {}", e.what()));
  }
  if (testbed_.sut.restart == Restart::kPerTrial) stop_sut();
  return t;
}

}  // namespace wb
