#pragma once
// LoadResult: what one wbload run measured, its JSON form (DESIGN.md "Interfaces") and the exact
// merge of several results — the controller parses each generator's JSON with parse_result() and
// combines them with merge_results().
//
// Counting rules (per measured request = a request whose *intended* send time lies in the
// measurement window [warmup, warmup + duration)):
//   sent       requests written to a connection
//   completed  requests answered successfully; their latency, measured from the intended send
//              time (no coordinated omission), is in `histogram`
//   errors     requests that failed, by kind (connect, closed, protocol, server, ...), plus total
//   timeouts   requests neither answered nor failed within the timeout after their intended time
//              (also those still waiting for a connection)
//   late_sends sends that started later than the late threshold after their intended time
// so sent + unsent-timeouts = offered count and completed + errors.total + timeouts = offered count.
//   offered_rate   the target λ (requests/s)
//   achieved_rate  successful responses received during the window / duration_s (throughput)
//
// JSON: {"offered_rate", "achieved_rate", "duration_s", "sent", "completed",
//        "errors": {"total": n, "<kind>": n, ...}, "timeouts", "late_sends",
//        "latency_ms": {"mean","stddev","p50","p90","p95","p99","p999","max"},
//        "histogram": LatencyHistogram JSON, "intervals": [ {...}, ... ] (only if recorded),
//        "generators": number of merged results (1 for one wbload run),
//        "trace": {"path", "ops"} (only with --trace)}
// latency_ms is derived from the histogram and recomputed after a merge.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/histogram.hpp"

namespace wb {

// One second (or other interval) of the window; requests are attributed by intended send time,
// `completions` by the time the response arrived.
struct LoadInterval {
  double start_s = 0;  // offset from the start of the measurement window
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t completions = 0;
  std::uint64_t errors = 0;
  std::uint64_t timeouts = 0;
  LatencyHistogram histogram;
};

struct LoadResult {
  double offered_rate = 0;
  double achieved_rate = 0;
  double duration_s = 0;
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::map<std::string, std::uint64_t> errors;  // by kind; "total" is computed, not stored
  std::uint64_t timeouts = 0;
  std::uint64_t late_sends = 0;
  std::uint64_t generators = 1;
  LatencyHistogram histogram;  // latencies of completed requests
  std::vector<LoadInterval> intervals;
  std::string trace_path;       // wbload --trace: the file written, and its operations
  std::uint64_t trace_ops = 0;  // (= completed); not merged

  std::uint64_t error_total() const;
};

nlohmann::json to_json(const LoadResult& r);
// Parses a result object as printed by `wbload --json` and checks it with check_result(r).
// Throws wb::InputError naming the field.
LoadResult parse_result(const nlohmann::json& j);
LoadResult parse_result(const std::string& text);

// Throws wb::InputError naming the field ("result.completed: ...") unless wbload could produce `r` by
// the counting rules: rates (at most kMaxRate) and duration finite and positive, completed <= sent <=
// completed + errors + timeouts, late_sends <= sent, achieved_rate × duration_s whole, a consistent
// histogram counting exactly the completed requests, intervals within the totals.
void check_result(const LoadResult& r);

// What one generator was asked to do.
struct LoadRequest {
  double rate = 0;        // λ of this generator, requests/s
  double duration_s = 0;  // measurement window
  double warmup_s = 0;
  double timeout_s = 5;  // per request
};

// check_result(r), then what `asked` implies: the rate and duration asked for (up to command-line
// rounding); completed + errors + timeouts within 10 standard deviations (+20) of λ·duration; window
// responses at most those sent plus the warm-up's; no latency above the timeout. Throws wb::InputError
// naming the field.
void check_result(const LoadResult& r, const LoadRequest& asked);

// Merges the results of generators that ran concurrently over the same window: rates and counts
// add, histograms merge exactly, duration is the longest, intervals add position-wise.
LoadResult merge_results(const std::vector<LoadResult>& parts);

// Multi-line human-readable summary (what wbload prints without --json).
std::string to_text(const LoadResult& r);

}  // namespace wb
