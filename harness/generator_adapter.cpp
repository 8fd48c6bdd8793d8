#include "harness/generator_adapter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "harness/hdr_log.hpp"
#include "harness/shell_quote.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

using nlohmann::json;

const char* generator_name(GeneratorKind kind) {
  switch (kind) {
    case GeneratorKind::kWbload: return "wbload";
    case GeneratorKind::kCommand: return "command";
    case GeneratorKind::kPgbench: return "pgbench";
    case GeneratorKind::kFio: return "fio";
  }
  return "?";
}

const std::vector<std::string>& generator_run_placeholders() {
  static const std::vector<std::string> kNames{"rate",        "duration", "warmup", "timeout",
                                               "connections", "threads",  "seed",   "target"};
  return kNames;
}

void add_run_values(GeneratorRun& run) {
  run.values["rate"] = fmt::format("{:.6f}", run.rate);
  run.values["duration"] = fmt::format("{:g}", run.duration_s);
  run.values["warmup"] = fmt::format("{:g}", run.warmup_s);
  run.values["timeout"] = fmt::format("{:g}", run.timeout_s);
  run.values["connections"] = std::to_string(run.connections);
  run.values["threads"] = std::to_string(run.threads);
  run.values["seed"] = std::to_string(run.seed);
  run.values["target"] = run.target;
}

namespace {

double unit_ns(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw InputError(fmt::format("latency unit '{}' is not ns, us, ms or s", unit));
}

// A latency in `scale` ns units as whole nanoseconds; InputError unless finite and >= 0.
std::uint64_t latency_ns(const json& v, double scale, const std::string& where) {
  if (!v.is_number())
    throw InputError(fmt::format("{}: a latency must be a number, not {}", where, v.dump()));
  double ns = v.get<double>() * scale;
  if (!std::isfinite(ns) || ns < 0 || ns > static_cast<double>(LatencyHistogram::kMaxValueNs))
    throw InputError(fmt::format("{}: latency {} is negative or out of range", where, v.dump()));
  return static_cast<std::uint64_t>(std::llround(ns));
}

std::uint64_t count_of(const json& v, const std::string& where) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d >= 0 && d < 9e15 && std::floor(d) == d) return static_cast<std::uint64_t>(d);
  }
  throw InputError(fmt::format("{}: must be a whole number of requests, not {}", where, v.dump()));
}

// The histogram of a latencies value (see JsonOutputMap::latencies).
LatencyHistogram histogram_of(const json& v, double scale, const std::string& where) {
  LatencyHistogram h;
  if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const json& e = v[i];
      std::string at = fmt::format("{}/{}", where, i);
      if (e.is_array()) {
        if (e.size() != 2) throw InputError(fmt::format("{}: a pair [latency, count] has two elements", at));
        h.record_n(latency_ns(e[0], scale, at), count_of(e[1], at));
      } else {
        h.record(latency_ns(e, scale, at));
      }
    }
    return h;
  }
  if (v.is_object()) {
    for (const auto& [key, count] : v.items()) {
      std::string at = fmt::format("{}/{}", where, key);
      double value = 0;
      auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), value);
      if (ec != std::errc() || end != key.data() + key.size())
        throw InputError(fmt::format("{}: the key must be a latency", at));
      h.record_n(latency_ns(json(value), scale, at), count_of(count, at));
    }
    return h;
  }
  throw InputError(fmt::format("{}: latencies must be an array or an object, not {}", where, v.type_name()));
}

}  // namespace

LoadResult parse_json_output(const std::string& out, const JsonOutputMap& map, const GeneratorRun& run) {
  json j;
  try {
    j = json::parse(out);
  } catch (const json::exception& e) {  // a syntax error, or a number beyond every type (out_of_range)
    throw InputError(fmt::format("stdout is not one JSON document: {}", e.what()));
  }
  auto find = [&](const std::string& pointer, const char* key) -> const json* {
    if (pointer.empty()) return nullptr;
    json::json_pointer p(pointer);
    if (!j.contains(p))
      throw InputError(fmt::format("output has nothing at {} (workload.output.{})", pointer, key));
    return &j.at(p);
  };
  auto count = [&](const std::string& pointer, const char* key) -> std::optional<std::uint64_t> {
    const json* v = find(pointer, key);
    if (v == nullptr) return std::nullopt;
    return count_of(*v, fmt::format("output{} (workload.output.{})", pointer, key));
  };
  LoadResult r;
  r.offered_rate = run.rate;
  r.duration_s = run.duration_s;
  r.completed = *count(map.completed, "completed");
  const std::uint64_t errors = count(map.errors, "errors").value_or(0);
  if (errors > 0) r.errors["reported"] = errors;
  r.timeouts = count(map.timeouts, "timeouts").value_or(0);
  r.sent = count(map.sent, "sent").value_or(r.completed + errors + r.timeouts);
  r.histogram = histogram_of(*find(map.latencies, "latencies"), unit_ns(map.latency_unit),
                             fmt::format("output{} (workload.output.latencies)", map.latencies));
  if (r.histogram.count() != r.completed) {
    throw InputError(fmt::format("output{} holds {} latencies but output{} says {} requests completed",
                                 map.latencies, r.histogram.count(), map.completed, r.completed));
  }
  // A rate the program printed stands for whole responses in the window (check_result asks it).
  double received = static_cast<double>(r.completed);
  if (const json* a = find(map.achieved_rate, "achieved_rate")) {
    if (!a->is_number() || !std::isfinite(a->get<double>()) || a->get<double>() < 0)
      throw InputError(fmt::format("output{} (workload.output.achieved_rate): not a rate: {}",
                                   map.achieved_rate, a->dump()));
    received = std::round(a->get<double>() * run.duration_s);
  }
  r.achieved_rate = received / run.duration_s;
  return r;
}

LoadResult parse_hdr_output(const std::string& out, const JsonOutputMap& map, const GeneratorRun& run) {
  HdrLog log = read_hdr_log(out, unit_ns(map.latency_unit), run.warmup_s);
  LoadResult r;
  r.offered_rate = run.rate;
  r.duration_s = run.duration_s;
  r.histogram = std::move(log.histogram);
  r.completed = r.histogram.count();
  r.sent = r.completed;
  r.achieved_rate = static_cast<double>(r.completed) / run.duration_s;
  return r;
}

namespace {

// Splits a log line at spaces.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> f;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) f.push_back(line.substr(start, i - start));
  }
  return f;
}

std::int64_t whole(std::string_view s, std::size_t line_no, const char* what) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0)
    throw InputError(fmt::format("pgbench log line {}: {} '{}' is not a whole number", line_no, what, s));
  return v;
}

}  // namespace

LoadResult parse_pgbench_log(const std::string& log, const GeneratorRun& run) {
  enum class Kind { kDone, kSkipped, kFailed };
  struct Tx {
    std::int64_t scheduled_us;  // when pgbench's schedule meant it to start (Unix time)
    std::int64_t done_us;       // when it completed (or was skipped or failed)
    std::int64_t latency_us;
    Kind kind;
  };
  const auto timeout_us = static_cast<std::int64_t>(std::llround(run.timeout_s * 1e6));
  std::vector<Tx> txs;
  std::istringstream in(log);
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    auto f = fields_of(line);
    if (f.empty()) continue;
    if (f.size() < 6 || f.size() > 8)
      throw InputError(
          fmt::format("pgbench log line {}: {} fields, not 6 to 8: '{}'", line_no, f.size(), line));
    Tx t{};
    std::int64_t epoch = whole(f[4], line_no, "time_epoch");
    std::int64_t us = whole(f[5], line_no, "time_us");
    if (us >= 1000000 || epoch > (std::int64_t{1} << 40))
      throw InputError(
          fmt::format("pgbench log line {}: time stamp {}.{} is impossible", line_no, f[4], f[5]));
    t.done_us = epoch * 1000000 + us;
    // With --rate, `time` runs from the scheduled start: queueing behind a busy client counts.
    if (f[2] == "skipped") {
      t.kind = Kind::kSkipped;  // already later than --latency-limit when its client was free
      t.latency_us = timeout_us;
    } else if (f[2] == "failed") {
      t.kind = Kind::kFailed;
      t.latency_us = 0;
    } else {
      t.kind = Kind::kDone;
      t.latency_us = whole(f[2], line_no, "time");
      if (t.latency_us > t.done_us)
        throw InputError(fmt::format("pgbench log line {}: time {} µs began before 1970", line_no, f[2]));
    }
    t.scheduled_us = t.done_us - t.latency_us;
    txs.push_back(t);
  }
  if (txs.empty()) throw InputError("pgbench logged no transaction");
  std::int64_t start_us = txs.front().scheduled_us;
  for (const Tx& t : txs) start_us = std::min(start_us, t.scheduled_us);
  const std::int64_t from = start_us + static_cast<std::int64_t>(std::llround(run.warmup_s * 1e6));
  const std::int64_t to = from + static_cast<std::int64_t>(std::llround(run.duration_s * 1e6));
  LoadResult r;
  r.offered_rate = run.rate;
  r.duration_s = run.duration_s;
  std::uint64_t received = 0;
  for (const Tx& t : txs) {
    const bool answered = t.kind == Kind::kDone && t.latency_us <= timeout_us;
    if (answered && t.done_us >= from && t.done_us < to) ++received;
    if (t.scheduled_us < from || t.scheduled_us >= to) continue;
    switch (t.kind) {
      case Kind::kDone:
        ++r.sent;
        if (answered) {
          ++r.completed;
          r.histogram.record(static_cast<std::uint64_t>(t.latency_us) * 1000);
        } else {
          ++r.timeouts;  // answered after the timeout: late, as wbload counts it
        }
        break;
      case Kind::kSkipped:
        ++r.timeouts;  // never sent
        break;
      case Kind::kFailed:
        ++r.sent;
        ++r.errors["failed"];
        break;
    }
  }
  r.achieved_rate = static_cast<double>(received) / run.duration_s;
  return r;
}

namespace {

class CommandAdapter final : public GeneratorAdapter {
 public:
  CommandAdapter(std::string command, JsonOutputMap output)
      : command_(std::move(command)), output_(std::move(output)) {}
  GeneratorKind kind() const override { return GeneratorKind::kCommand; }
  std::vector<std::string> argv(const GeneratorRun& run) const override {
    return expand_command_template(command_, run.values);
  }
  LoadResult parse(const std::string& out, const GeneratorRun& run) const override {
    return output_.format == "hdr-log" ? parse_hdr_output(out, output_, run)
                                       : parse_json_output(out, output_, run);
  }

 private:
  std::string command_;
  JsonOutputMap output_;
};

// pgbench's stdout report goes to stderr and its log files to stdout, from a scratch folder that
// is removed afterwards: the log comes back over the executor's pipe from local and SSH hosts alike.
const char* const kPgbenchWrapper =
    "d=$(mktemp -d) && cd \"$d\" || exit 1; \"$@\" >&2; s=$?; cat wb_log.* 2>/dev/null; cd /; rm -rf \"$d\"; "
    "exit $s";

class PgbenchAdapter final : public GeneratorAdapter {
 public:
  explicit PgbenchAdapter(std::vector<std::string> args) : args_(std::move(args)) {}
  GeneratorKind kind() const override { return GeneratorKind::kPgbench; }
  std::vector<std::string> argv(const GeneratorRun& run) const override {
    std::vector<std::string> a{"sh", "-c", kPgbenchWrapper, "wb-pgbench", run.program, "--client",
                               std::to_string(run.connections), "--jobs", std::to_string(run.threads),
                               "--time", std::to_string(seconds(run)), "--rate",
                               fmt::format("{:.6f}", run.rate),
                               // Later than the timeout at its turn: skipped (counted as a timeout), so
                               // that an overloaded server cannot stretch the run.
                               "--latency-limit", fmt::format("{:g}", run.timeout_s * 1000), "--log",
                               "--log-prefix=wb_log", fmt::format("--random-seed={}", run.seed)};
    for (const auto& t : args_) {
      for (auto& w : expand_command_template(t, run.values)) a.push_back(std::move(w));
    }
    return a;
  }
  LoadResult parse(const std::string& out, const GeneratorRun& run) const override {
    return parse_pgbench_log(out, run);
  }
  double extra_time_s(const GeneratorRun& run) const override {
    return static_cast<double>(seconds(run)) - (run.warmup_s + run.duration_s + run.timeout_s);
  }

 private:
  // pgbench --time takes whole seconds: the window and the timeout of its last requests, rounded up.
  static long seconds(const GeneratorRun& run) {
    return static_cast<long>(std::ceil(run.warmup_s + run.duration_s + run.timeout_s - 1e-9));
  }
  std::vector<std::string> args_;
};

}  // namespace

std::unique_ptr<GeneratorAdapter> make_generator_adapter(const WorkloadConfig& w) {
  switch (w.generator) {
    case GeneratorKind::kCommand: return std::make_unique<CommandAdapter>(w.program, w.output);
    case GeneratorKind::kPgbench: return std::make_unique<PgbenchAdapter>(w.args);
    case GeneratorKind::kFio: return make_fio_adapter(w);
    case GeneratorKind::kWbload: break;
  }
  throw Error(fmt::format("the {} generator has no adapter", generator_name(w.generator)));
}

}  // namespace wb
