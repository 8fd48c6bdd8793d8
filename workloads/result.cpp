#include "workloads/result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/trial_limits.hpp"

namespace wb {
namespace {

double ms(double ns) { return ns / 1e6; }

nlohmann::json latency_json(const LatencyHistogram& h) {
  auto p = [&](double q) { return ms(static_cast<double>(h.percentile_ns(q))); };
  return nlohmann::json{{"mean", ms(h.mean_ns())},
                        {"stddev", ms(h.stddev_ns())},
                        {"p50", p(50)},
                        {"p90", p(90)},
                        {"p95", p(95)},
                        {"p99", p(99)},
                        {"p999", p(99.9)},
                        {"max", ms(static_cast<double>(h.max_ns()))}};
}

const nlohmann::json& field(const nlohmann::json& j, const std::string& where, const char* key) {
  if (!j.is_object()) throw InputError(where + ": not a JSON object");
  auto it = j.find(key);
  if (it == j.end()) throw InputError(where + ": missing field '" + key + "'");
  return *it;
}

std::uint64_t get_u64(const nlohmann::json& j, const std::string& where, const char* key) {
  const auto& v = field(j, where, key);
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return v.get<std::uint64_t>();
  throw InputError(where + "." + key + ": not a non-negative integer");
}

double get_num(const nlohmann::json& j, const std::string& where, const char* key) {
  const auto& v = field(j, where, key);
  if (!v.is_number()) throw InputError(where + "." + key + ": not a number");
  return v.get<double>();
}

// More generators than this in one merged result is not a testbed, it is a corrupt count.
constexpr std::uint64_t kMaxGenerators = 1000000;

std::string shown(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

[[noreturn]] void fail(const std::string& field_name, double value, const std::string& what) {
  throw InputError(field_name + ": " + shown(value) + " " + what);
}

std::uint64_t add_counts(std::uint64_t a, std::uint64_t b, const std::string& where) {
  if (b > std::numeric_limits<std::uint64_t>::max() - a) throw InputError(where + ": the counts overflow");
  return a + b;
}

std::uint64_t resolved_count(const LoadResult& r) {
  std::uint64_t n = add_counts(r.completed, r.timeouts, "result.timeouts");
  for (const auto& [kind, e] : r.errors) n = add_counts(n, e, "result.errors." + kind);
  return n;
}

// The histogram under `where`, its errors named from the result down ("result.histogram.sum").
LatencyHistogram histogram_field(const nlohmann::json& j, const std::string& where) {
  const auto& h = field(j, where, "histogram");
  try {
    return LatencyHistogram::from_json(h);
  } catch (const InputError& e) {
    throw InputError(where + "." + e.what());
  }
}

}  // namespace

std::uint64_t LoadResult::error_total() const {
  std::uint64_t t = 0;
  for (const auto& [kind, n] : errors) t += n;
  return t;
}

nlohmann::json to_json(const LoadResult& r) {
  nlohmann::json errors = nlohmann::json::object();
  errors["total"] = r.error_total();
  for (const auto& [kind, n] : r.errors) errors[kind] = n;
  nlohmann::json j{{"offered_rate", r.offered_rate},
                   {"achieved_rate", r.achieved_rate},
                   {"duration_s", r.duration_s},
                   {"sent", r.sent},
                   {"completed", r.completed},
                   {"errors", errors},
                   {"timeouts", r.timeouts},
                   {"late_sends", r.late_sends},
                   {"latency_ms", latency_json(r.histogram)},
                   {"histogram", r.histogram.to_json()},
                   {"generators", r.generators}};
  if (!r.intervals.empty()) {
    nlohmann::json iv = nlohmann::json::array();
    for (const auto& i : r.intervals) {
      iv.push_back({{"start_s", i.start_s},
                    {"sent", i.sent},
                    {"completed", i.completed},
                    {"completions", i.completions},
                    {"errors", i.errors},
                    {"timeouts", i.timeouts},
                    {"latency_ms", latency_json(i.histogram)},
                    {"histogram", i.histogram.to_json()}});
    }
    j["intervals"] = std::move(iv);
  }
  if (!r.trace_path.empty()) j["trace"] = {{"path", r.trace_path}, {"ops", r.trace_ops}};
  return j;
}

namespace {

LoadResult parse_fields(const nlohmann::json& j) {
  const std::string w = "result";
  LoadResult r;
  r.offered_rate = get_num(j, w, "offered_rate");
  r.achieved_rate = get_num(j, w, "achieved_rate");
  r.duration_s = get_num(j, w, "duration_s");
  r.sent = get_u64(j, w, "sent");
  r.completed = get_u64(j, w, "completed");
  r.timeouts = get_u64(j, w, "timeouts");
  r.late_sends = get_u64(j, w, "late_sends");
  if (j.contains("generators")) r.generators = get_u64(j, w, "generators");
  const auto& errors = field(j, w, "errors");
  if (!errors.is_object()) throw InputError("result.errors: not an object");
  std::uint64_t total = 0;
  std::uint64_t sum = 0;
  for (auto it = errors.begin(); it != errors.end(); ++it) {
    std::uint64_t n = get_u64(errors, "result.errors", it.key().c_str());
    if (it.key() == "total") {
      total = n;
    } else {
      r.errors[it.key()] = n;
      sum = add_counts(sum, n, "result.errors." + it.key());
    }
  }
  if (total != sum) throw InputError("result.errors.total: does not equal the sum of the kinds");
  r.histogram = histogram_field(j, w);
  if (auto it = j.find("trace"); it != j.end()) {
    if (!it->is_object() || !it->contains("path") || !it->at("path").is_string())
      throw InputError("result.trace: not an object with a string \"path\"");
    r.trace_path = it->at("path").get<std::string>();
    r.trace_ops = get_u64(*it, "result.trace", "ops");
  }
  if (auto it = j.find("intervals"); it != j.end()) {
    if (!it->is_array()) throw InputError("result.intervals: not an array");
    for (std::size_t k = 0; k < it->size(); ++k) {
      const auto& e = (*it)[k];
      std::string iw = "result.intervals[" + std::to_string(k) + "]";
      LoadInterval i;
      i.start_s = get_num(e, iw, "start_s");
      i.sent = get_u64(e, iw, "sent");
      i.completed = get_u64(e, iw, "completed");
      i.completions = get_u64(e, iw, "completions");
      i.errors = get_u64(e, iw, "errors");
      i.timeouts = get_u64(e, iw, "timeouts");
      i.histogram = histogram_field(e, iw);
      r.intervals.push_back(std::move(i));
    }
  }
  return r;
}

}  // namespace

LoadResult parse_result(const nlohmann::json& j) {
  LoadResult r;
  try {
    r = parse_fields(j);
  } catch (const nlohmann::json::exception& e) {  // a type the checks did not foresee
    throw InputError(std::string("result: ") + e.what());
  }
  check_result(r);
  return r;
}

void check_result(const LoadResult& r) {
  const double generators = static_cast<double>(r.generators);
  if (r.generators < 1 || r.generators > kMaxGenerators)
    throw InputError("result.generators: " + std::to_string(r.generators) + " is not from 1 to " +
                     std::to_string(kMaxGenerators));
  if (!(std::isfinite(r.offered_rate) && r.offered_rate > 0 && r.offered_rate <= kMaxRate * generators))
    fail("result.offered_rate", r.offered_rate, "is not a positive rate of at most 1e8/s per generator");
  if (!(std::isfinite(r.achieved_rate) && r.achieved_rate >= 0 && r.achieved_rate <= kMaxRate * generators))
    fail("result.achieved_rate", r.achieved_rate, "is not a rate from 0 to 1e8/s per generator");
  if (!(std::isfinite(r.duration_s) && r.duration_s > 0 && r.duration_s <= kMaxSeconds))
    fail("result.duration_s", r.duration_s, "is not a positive number of seconds of at most 1e6");
  if (r.completed > r.sent)
    throw InputError("result.completed: " + std::to_string(r.completed) + " exceeds result.sent " +
                     std::to_string(r.sent));
  if (r.late_sends > r.sent)
    throw InputError("result.late_sends: " + std::to_string(r.late_sends) + " exceeds result.sent " +
                     std::to_string(r.sent));
  if (r.histogram.count() != r.completed)
    throw InputError("result.histogram.count: " + std::to_string(r.histogram.count()) +
                     " does not equal result.completed " + std::to_string(r.completed));
  // Every request sent in the window was answered, failed or timed out before wbload printed.
  const std::uint64_t resolved = resolved_count(r);
  if (r.sent > resolved)
    throw InputError("result.sent: " + std::to_string(r.sent) + " exceeds completed + errors + timeouts (" +
                     std::to_string(resolved) + ")");
  // achieved_rate is the responses inside the window over duration_s (per generator; merged
  // results add the counts), so the product is a whole number up to rounding.
  const double responses = r.achieved_rate * r.duration_s;
  if (std::fabs(responses - std::round(responses)) > 1e-6 * std::max(1.0, responses))
    fail("result.achieved_rate", r.achieved_rate,
         "times result.duration_s " + shown(r.duration_s) + " is not a whole number of responses");
  std::uint64_t sent = 0, completed = 0, errors = 0, timeouts = 0;
  for (std::size_t k = 0; k < r.intervals.size(); ++k) {
    const LoadInterval& i = r.intervals[k];
    const std::string iw = "result.intervals[" + std::to_string(k) + "]";
    if (!(std::isfinite(i.start_s) && i.start_s >= 0 && i.start_s < r.duration_s))
      fail(iw + ".start_s", i.start_s, "is not inside the window [0, duration_s)");
    if (i.completed > i.sent)
      throw InputError(iw + ".completed: " + std::to_string(i.completed) + " exceeds its sent " +
                       std::to_string(i.sent));
    if (i.histogram.count() != i.completed)
      throw InputError(iw + ".histogram.count: does not equal its completed " + std::to_string(i.completed));
    sent = add_counts(sent, i.sent, iw + ".sent");
    completed = add_counts(completed, i.completed, iw + ".completed");
    errors = add_counts(errors, i.errors, iw + ".errors");
    timeouts = add_counts(timeouts, i.timeouts, iw + ".timeouts");
  }
  if (sent > r.sent || completed > r.completed || errors > r.error_total() || timeouts > r.timeouts)
    throw InputError(
        "result.intervals: their sent, completed, errors or timeouts add up to more than the "
        "result's");
}

void check_result(const LoadResult& r, const LoadRequest& asked) {
  check_result(r);
  // The command line carries the rate with 6 decimals and the duration with 6 significant digits.
  if (std::fabs(r.offered_rate - asked.rate) > 1e-6 * std::max(1.0, asked.rate))
    fail("result.offered_rate", r.offered_rate, "is not the rate asked for, " + shown(asked.rate));
  if (std::fabs(r.duration_s - asked.duration_s) > 1e-5 * asked.duration_s)
    fail("result.duration_s", r.duration_s, "is not the duration asked for, " + shown(asked.duration_s));
  // The requests whose intended time fell in the window: Poisson(λD) for Poisson arrivals, λD ± 1
  // for constant ones. 10 standard deviations is never reached by chance.
  auto plausible_max = [](double expected) { return expected + 10 * std::sqrt(expected) + 20; };
  const double expected = asked.rate * asked.duration_s;
  const auto resolved = static_cast<double>(resolved_count(r));
  if (resolved > plausible_max(expected) || resolved < expected - 10 * std::sqrt(expected) - 20) {
    throw InputError("result.sent: completed + errors + timeouts is " + shown(resolved) + ", but " +
                     shown(asked.rate) + "/s for " + shown(asked.duration_s) + " s offers about " +
                     shown(expected));
  }
  // Responses received inside the window answer requests sent in it or during the warm-up.
  const double responses = std::round(r.achieved_rate * r.duration_s);
  if (responses > static_cast<double>(r.sent) + plausible_max(asked.rate * asked.warmup_s))
    fail("result.achieved_rate", r.achieved_rate,
         "counts more responses than the requests sent in the window and the warm-up");
  // wbload records no latency above its timeout; the slack covers the command line's rounding.
  const double limit_ns = asked.timeout_s * (1 + 1e-5) * 1e9 + 1e6;
  if (static_cast<double>(r.histogram.max_ns()) > limit_ns)
    fail("result.histogram.max", static_cast<double>(r.histogram.max_ns()) / 1e6,
         "ms exceeds the request timeout of " + shown(asked.timeout_s) + " s");
}

LoadResult parse_result(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for huge numbers
    throw InputError(std::string("result: not JSON: ") + e.what());
  }
  return parse_result(j);
}

LoadResult merge_results(const std::vector<LoadResult>& parts) {
  LoadResult m;
  m.generators = 0;
  double achieved_count = 0;
  for (const auto& p : parts) {
    m.offered_rate += p.offered_rate;
    achieved_count += p.achieved_rate * p.duration_s;
    m.duration_s = std::max(m.duration_s, p.duration_s);
    m.sent += p.sent;
    m.completed += p.completed;
    for (const auto& [kind, n] : p.errors) m.errors[kind] += n;
    m.timeouts += p.timeouts;
    m.late_sends += p.late_sends;
    m.generators += p.generators;
    m.histogram.merge(p.histogram);
    if (m.intervals.size() < p.intervals.size()) m.intervals.resize(p.intervals.size());
    for (std::size_t k = 0; k < p.intervals.size(); ++k) {
      auto& d = m.intervals[k];
      const auto& s = p.intervals[k];
      d.start_s = s.start_s;
      d.sent += s.sent;
      d.completed += s.completed;
      d.completions += s.completions;
      d.errors += s.errors;
      d.timeouts += s.timeouts;
      d.histogram.merge(s.histogram);
    }
  }
  // Achieved rates add when the windows coincide; going through counts keeps it exact when one
  // generator's window was slightly longer.
  m.achieved_rate = m.duration_s > 0 ? achieved_count / m.duration_s : 0;
  return m;
}

std::string to_text(const LoadResult& r) {
  const auto& h = r.histogram;
  auto p = [&](double q) { return ms(static_cast<double>(h.percentile_ns(q))); };
  std::ostringstream o;
  char line[256];
  std::snprintf(line, sizeof line, "offered   %12.1f req/s   achieved %12.1f req/s  (%.2f%%) over %.1f s\n",
                r.offered_rate, r.achieved_rate,
                r.offered_rate > 0 ? 100.0 * r.achieved_rate / r.offered_rate : 0.0, r.duration_s);
  o << line;
  std::snprintf(line, sizeof line,
                "requests  sent %llu  completed %llu  errors %llu  timeouts %llu  late sends %llu\n",
                static_cast<unsigned long long>(r.sent), static_cast<unsigned long long>(r.completed),
                static_cast<unsigned long long>(r.error_total()), static_cast<unsigned long long>(r.timeouts),
                static_cast<unsigned long long>(r.late_sends));
  o << line;
  for (const auto& [kind, n] : r.errors) {
    std::snprintf(line, sizeof line, "  error %-12s %llu\n", kind.c_str(),
                  static_cast<unsigned long long>(n));
    o << line;
  }
  std::snprintf(line, sizeof line,
                "latency   mean %.3f ms  stddev %.3f ms\n"
                "          p50 %.3f  p90 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  max %.3f ms\n",
                ms(h.mean_ns()), ms(h.stddev_ns()), p(50), p(90), p(95), p(99), p(99.9),
                ms(static_cast<double>(h.max_ns())));
  o << line;
  if (!r.intervals.empty()) {
    o << "interval   sent  completions   errors timeouts    p50 ms    p99 ms    max ms\n";
    for (const auto& i : r.intervals) {
      std::snprintf(line, sizeof line, "%7.1fs %7llu %11llu %8llu %8llu %9.3f %9.3f %9.3f\n", i.start_s,
                    static_cast<unsigned long long>(i.sent), static_cast<unsigned long long>(i.completions),
                    static_cast<unsigned long long>(i.errors), static_cast<unsigned long long>(i.timeouts),
                    ms(static_cast<double>(i.histogram.percentile_ns(50))),
                    ms(static_cast<double>(i.histogram.percentile_ns(99))),
                    ms(static_cast<double>(i.histogram.max_ns())));
      o << line;
    }
  }
  if (!r.trace_path.empty()) o << "trace     " << r.trace_ops << " operations in " << r.trace_path << "\n";
  return o.str();
}

}  // namespace wb
