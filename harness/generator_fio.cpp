// The fio generator: fio at rate_iops with rate_process=poisson over workbench's window, read back
// from its json+ output (per-job completion-latency bins) by wbload's counting rules.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/trial_limits.hpp"
#include "harness/generator_adapter.hpp"
#include "harness/shell_quote.hpp"
#include "harness/testbed_config.hpp"
#include "models/fio_json.hpp"

namespace wb {

namespace {

using nlohmann::json;

// fio's name of the option a command-line word sets ("--rate_iops=5" -> "rate_iops"), or "".
// fio takes -name and --name alike (getopt_long_only); '-' and '_' are read as one here.
std::string fio_option_name(const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return "";
  std::string key = word.substr(word[1] == '-' ? 2 : 1);
  key = key.substr(0, key.find('='));
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

// The value of option `name` in fio's words (the last one given wins, as in fio), or "".
std::string fio_option_value(const std::vector<std::string>& words, const std::string& name) {
  std::string value;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (fio_option_name(words[i]) != name) continue;
    const auto eq = words[i].find('=');
    if (eq != std::string::npos)
      value = words[i].substr(eq + 1);
    else if (i + 1 < words.size())
      value = words[++i];
  }
  return value;
}

long whole_option(const std::vector<std::string>& words, const std::string& name, long fallback, long lo,
                  long hi) {
  const std::string v = fio_option_value(words, name);
  if (v.empty()) return fallback;
  long n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < lo || n > hi)
    throw InputError(
        fmt::format("fio --{}={}: workbench needs a whole number from {} to {} here", name, v, lo, hi));
  return n;
}

// fio schedules a job's next I/O (backend.c usec_for_io) after (int64)(1e6 / iops) * -log(U) µs,
// truncated to whole µs: a mean gap of floor(1e6 / iops) - 0.5 µs, so its rate is not `iops`.
double fio_effective_iops(long iops) {
  if (iops <= 0) return 0;
  const long gap_us = 1000000 / iops;  // whole µs, as fio divides
  return 1e6 / (static_cast<double>(gap_us) - 0.5);
}

// The rate_iops value whose effective rate is nearest `target`, or 0 below 1/s: at high rates
// the whole-µs gap decides, at low ones the whole iops.
long fio_rate_iops_for(double target) {
  if (!(target >= 0.5)) return 0;
  const double gap_us = 1e6 / target + 0.5;
  long best = 0;
  for (double c : {std::floor(target), std::ceil(target), std::floor(1e6 / std::floor(gap_us)),
                   std::floor(1e6 / std::ceil(gap_us))}) {
    if (!(c >= 1 && c <= 1e6)) continue;
    const auto iops = static_cast<long>(c);
    if (best == 0 ||
        std::fabs(fio_effective_iops(iops) - target) < std::fabs(fio_effective_iops(best) - target))
      best = iops;
  }
  return best;
}

bool is_mixed_rw(std::string rw) {
  rw = rw.substr(0, rw.find(':'));  // "randrw:8" issues 8 sequential I/Os per random offset
  return rw == "rw" || rw == "readwrite" || rw == "randrw";
}

// --rate_iops for this run: λ over numjobs (fio's rate is per job) and, for mixed modes, split
// into read,write by rwmixread.
std::string rate_iops_argument(const std::vector<std::string>& words, double rate) {
  const long jobs = whole_option(words, "numjobs", 1, 1, 100000);
  const std::string rw = fio_option_value(words, "rw").empty() ? fio_option_value(words, "readwrite")
                                                               : fio_option_value(words, "rw");
  if (rw.rfind("trimwrite", 0) == 0 || rw.rfind("randtrimwrite", 0) == 0)
    throw InputError(fmt::format("fio --rw={}: workbench cannot split its rate over trims and writes", rw));
  const double per_job = rate / static_cast<double>(jobs);
  std::vector<double> shares{per_job};
  if (is_mixed_rw(rw)) {
    long read_pct = 50;
    if (!fio_option_value(words, "rwmixwrite").empty())
      read_pct = 100 - whole_option(words, "rwmixwrite", 50, 0, 100);
    read_pct = whole_option(words, "rwmixread", read_pct, 0, 100);
    shares = {per_job * static_cast<double>(read_pct) / 100,
              per_job * static_cast<double>(100 - read_pct) / 100};
  }
  std::string arg = "--rate_iops=";
  for (std::size_t d = 0; d < shares.size(); ++d) {
    long iops = shares[d] > 0 ? fio_rate_iops_for(shares[d]) : 0;
    // rate_iops 0 means no limit to fio: a share too small to schedule must not become that.
    if (shares[d] > 0 && iops < 1)
      throw InputError(
          fmt::format("{:.6f} I/Os per second for each of fio's {} jobs is below fio's least rate "
                      "(1 per second per job and direction)",
                      shares[d], jobs));
    arg += (d > 0 ? "," : "") + std::to_string(iops);
  }
  return arg;
}

// Microseconds as fio reads a time option ("2500000us"): its default unit is whole seconds.
std::string fio_time(double seconds) { return fmt::format("{}us", std::llround(seconds * 1e6)); }

std::uint64_t count_at(const json& j, const char* key, const std::string& where) {
  const json& v = fio_member(j, key, where);
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  throw InputError(fmt::format("fio output {}.{}: {} is not a count", where, key, v.dump()));
}

// The I/Os per second one job's schedule offers for rate_iops "read[,write[,trim]]", summed.
double summed_effective_iops(const std::string& s, const std::string& where) {
  double iops = 0;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = std::min(s.find(',', from), s.size());
    long n = 0;
    auto [end, ec] = std::from_chars(s.data() + from, s.data() + comma, n);
    if (ec != std::errc() || end != s.data() + comma || n < 0 || n > 1000000)
      throw InputError(fmt::format("{}: '{}' is not whole I/O rates of at most 1000000", where, s));
    iops += fio_effective_iops(n);
    if (comma == s.size()) return iops;
    from = comma + 1;
  }
}

// The I/Os per second a job was scheduled at, from the rate_iops fio echoes in its own options or,
// given before any --name as workbench does, in the global ones.
double scheduled_iops(const json& job, const json& global, const std::string& where) {
  const json& options = fio_member(job, "job options", where);
  std::string at = where + ".job options";
  if (!options.contains("rate_iops")) {
    if (!global.is_object() || !global.contains("rate_iops"))
      throw InputError(fmt::format("fio output {}.rate_iops: missing, nor in global options", at));
    at = "global options";
  }
  const json& v = options.contains("rate_iops") ? options["rate_iops"] : global["rate_iops"];
  if (!v.is_string()) throw InputError(fmt::format("fio output {}.rate_iops: not a string", at));
  return summed_effective_iops(v.get<std::string>(), "fio output " + at + ".rate_iops");
}

// What fio measured for the window, summed over jobs and directions.
struct FioCounts {
  std::uint64_t issued = 0;  // I/Os issued in the window (total_ios less the resubmitted short ones)
  std::uint64_t late = 0;    // completed slower than the timeout
  std::uint64_t io_errors = 0;
  std::uint64_t dropped = 0;
  double scheduled = 0;  // I/Os fio's schedule meant to issue in the window
};

// One direction's clat_ns bins ("latency ns": count) into the histogram; those above `timeout_ns`
// are counted late instead.
void read_bins(const json& dir, const std::string& where, std::uint64_t timeout_ns, LatencyHistogram& h,
               FioCounts& c) {
  const std::string at = where + ".clat_ns";
  const json& clat = fio_member(dir, "clat_ns", where);
  const std::uint64_t n = count_at(clat, "N", at);
  if (n == 0) return;  // fio prints no bins for a direction without I/O
  const json& bins = fio_member(clat, "bins", at);
  if (!bins.is_object())
    throw InputError(fmt::format("fio output {}.bins: not an object (run with --output-format=json+)", at));
  std::uint64_t sum = 0;
  for (const auto& [key, count] : bins.items()) {
    std::uint64_t ns = 0;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), ns);
    if (ec != std::errc() || end != key.data() + key.size() || ns > LatencyHistogram::kMaxValueNs)
      throw InputError(fmt::format("fio output {}.bins: '{}' is not a latency in ns", at, key));
    const std::uint64_t k = count_at(bins, key.c_str(), at + ".bins");
    if (k > n - std::min(n, sum))
      throw InputError(fmt::format("fio output {}.bins: hold more I/Os than N = {}", at, n));
    sum += k;
    // wbload's rule: a response later than the timeout is a timeout, not a completion.
    if (ns > timeout_ns)
      c.late += k;
    else
      h.record_n(ns, k);
  }
  if (sum != n) throw InputError(fmt::format("fio output {}.bins: hold {} I/Os but N is {}", at, sum, n));
}

void read_job(const json& job, const json& global, const std::string& where, const GeneratorRun& run,
              LatencyHistogram& h, FioCounts& c) {
  const std::uint64_t error = count_at(job, "error", where);
  // With continue_on_error fio counts failed I/Os in total_err; without it, a job stops at its
  // first error (an errno in "error").
  c.io_errors += job.contains("total_err") ? count_at(job, "total_err", where) : (error != 0 ? 1 : 0);
  c.scheduled += scheduled_iops(job, global, where) * run.duration_s;
  const auto timeout_ns = static_cast<std::uint64_t>(std::llround(run.timeout_s * 1e9));
  for (const char* d : {"read", "write", "trim"}) {
    const std::string at = fmt::format("{}.{}", where, d);
    const json& dir = fio_member(job, d, where);
    const std::uint64_t total = count_at(dir, "total_ios", at);
    const std::uint64_t short_ios = count_at(dir, "short_ios", at);
    if (short_ios > total)
      throw InputError(fmt::format("fio output {}.short_ios: {} exceeds total_ios {}", at, short_ios, total));
    c.issued += total - short_ios;  // a short I/O is issued again for its rest and counted twice
    c.dropped += count_at(dir, "drop_ios", at);
    read_bins(dir, at, timeout_ns, h, c);
  }
}

class FioAdapter final : public GeneratorAdapter {
 public:
  explicit FioAdapter(std::vector<std::string> args) : args_(std::move(args)) {
    for (const auto& a : args_) {
      if (std::string why = fio_owned_option(a); !why.empty()) throw InputError(why);
    }
  }
  GeneratorKind kind() const override { return GeneratorKind::kFio; }
  std::vector<std::string> argv(const GeneratorRun& run) const override {
    std::vector<std::string> words = user_words(run);
    // Before the user's words, so that they are global options every job section inherits.
    std::vector<std::string> a{run.program,
                               rate_iops_argument(words, run.rate),
                               "--rate_process=poisson",
                               "--time_based",
                               "--ramp_time=" + fio_time(run.warmup_s),
                               "--runtime=" + fio_time(run.duration_s),
                               "--output-format=json+",
                               fmt::format("--randseed={}", run.seed)};
    if (!run.trace_prefix.empty()) {
      // One line per I/O of the window (fio does not log the ramp), with its offset.
      a.push_back("--write_lat_log=" + run.trace_prefix);
      a.push_back("--log_offset=1");
    }
    a.insert(a.end(), words.begin(), words.end());
    return a;
  }
  LoadResult parse(const std::string& out, const GeneratorRun& run) const override {
    return parse_fio_json(out, run);
  }
  double offered_rate(const GeneratorRun& run) const override {
    const std::vector<std::string> words = user_words(run);
    const std::string arg = rate_iops_argument(words, run.rate);
    const long jobs = whole_option(words, "numjobs", 1, 1, 100000);
    return static_cast<double>(jobs) * summed_effective_iops(arg.substr(arg.find('=') + 1), "--rate_iops");
  }

 private:
  std::vector<std::string> user_words(const GeneratorRun& run) const {
    std::vector<std::string> words;
    for (const auto& t : args_) {
      for (auto& w : expand_command_template(t, run.values)) words.push_back(std::move(w));
    }
    return words;
  }
  std::vector<std::string> args_;
};

}  // namespace

std::string fio_owned_option(const std::string& arg) {
  // The rate and its process, the window, the seed and what fio prints (its latency logs are the
  // trial's trace) are the trial's; a job that ends early or merged job reports would break the counts.
  static const char* const kOwned[] = {
      "rate",         "rate_iops",    "rate_min",        "ratemin",         "rate_iops_min",
      "rate_process", "rate_cycle",   "ratecycle",       "time_based",      "ramp_time",
      "runtime",      "timeout",      "randseed",        "output",          "output_format",
      "minimal",      "append_terse", "status_interval", "group_reporting", "number_ios",
      "io_size",      "io_limit",     "write_lat_log",   "log_offset",      "log_avg_msec"};
  const std::string name = fio_option_name(arg);
  for (const char* o : kOwned) {
    if (name == o)
      return fmt::format(
          "'{}' sets fio's {}, which workbench sets from the trial (rate, warm-up, duration, seed, output)",
          arg, name);
  }
  return "";
}

LoadResult parse_fio_json(const std::string& out, const GeneratorRun& run) {
  const json j = fio_json_document(out);
  const json& jobs = fio_member(j, "jobs", "");
  if (!jobs.is_array() || jobs.empty()) throw InputError("fio output .jobs: not a list of jobs");
  LoadResult r;
  r.duration_s = run.duration_s;
  FioCounts c;
  try {
    const json global = j.value("global options", json::object());
    for (std::size_t i = 0; i < jobs.size(); ++i)
      read_job(jobs[i], global, fmt::format(".jobs[{}]", i), run, r.histogram, c);
  } catch (const json::exception& e) {  // a type the checks did not foresee
    throw InputError(fmt::format("fio output: {}", e.what()));
  }
  r.completed = r.histogram.count();
  if (c.io_errors > 0) r.errors["io"] = c.io_errors;
  if (c.dropped > 0) r.errors["dropped"] = c.dropped;
  // fio neither times nor reports the I/Os still in flight when the window closes (at most
  // iodepth per job): like requests after the window, they are not counted as sent.
  r.sent = r.completed + c.late + r.error_total();
  r.timeouts = c.late;
  // fio issues late I/Os back to back once behind its schedule, but never reports the backlog. A
  // shortfall beyond 5 Poisson sd (the search's noise bound) is one: never sent in time, as wbload
  // counts requests still waiting for a connection.
  const double missing = c.scheduled - static_cast<double>(c.issued);
  if (missing > 5 * std::sqrt(c.scheduled)) r.timeouts += static_cast<std::uint64_t>(std::llround(missing));
  r.achieved_rate = static_cast<double>(r.completed) / run.duration_s;
  // What fio's schedule offered, which its whole-µs gaps set apart from the rate asked.
  r.offered_rate = c.scheduled / run.duration_s;
  if (!(r.offered_rate > 0 && r.offered_rate <= kMaxRate))
    throw InputError(
        fmt::format("fio output .jobs: rate_iops schedules {:g} I/Os per second in all: none (no "
                    "limit) or more than {:g}",
                    r.offered_rate, kMaxRate));
  return r;
}

std::unique_ptr<GeneratorAdapter> make_fio_adapter(const WorkloadConfig& w) {
  return std::make_unique<FioAdapter>(w.args);
}

}  // namespace wb
