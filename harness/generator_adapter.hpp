#pragma once
// Load generators other than wbload ([workload] generator): each adapter says how to run its
// program for one generator's share of a trial and turns what the program printed into a
// LoadResult, which the trial runner checks (check_result) and merges like wbload's. The
// counting rules are wbload's (workloads/result.hpp): a request belongs to the measurement window
// by its scheduled start, and its latency runs from there where the program can say so.
//   command  any program, from a template; its JSON output read through a map of JSON pointers
//   pgbench  PostgreSQL's pgbench at a Poisson --rate, from its per-transaction log
//   fio      fio at rate_iops with rate_process=poisson, from its json+ output (generator_fio.cpp)
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workloads/result.hpp"

namespace wb {

struct WorkloadConfig;  // harness/testbed_config.hpp

enum class GeneratorKind { kWbload, kCommand, kPgbench, kFio };

// "wbload", "command", "pgbench", "fio".
const char* generator_name(GeneratorKind kind);

// [workload.output] of the command generator: how to read what it prints. format "json": where
// each figure is in its one JSON document (RFC 6901 JSON pointers; only `completed` and
// `latencies` are required). format "hdr-log": an HdrHistogram interval log (harness/hdr_log.hpp)
// of the answered requests' latencies, intervals within the warm-up dropped; it has no error
// counts, so every request it holds counts as sent and answered.
struct JsonOutputMap {
  std::string format = "json";
  std::string completed;            // successful requests in the window
  std::string latencies;            // their latencies: an array of numbers, of [value, count] pairs,
                                    // or an object {"value": count}
  std::string latency_unit = "ms";  // ns, us, ms or s
  std::string sent;                 // default: completed + errors + timeouts
  std::string errors;               // default: 0
  std::string timeouts;             // default: 0
  std::string achieved_rate;        // default: completed / duration
};

// The names a generator template may use beyond the factors and the [sut] built-ins.
const std::vector<std::string>& generator_run_placeholders();

// One run of a generator on one host: its share of the trial.
struct GeneratorRun {
  std::map<std::string, std::string> values;  // template values on that host (factors, built-ins)
  std::string program;                        // the program's path on that host
  std::string target;                         // [workload] target, expanded
  double rate = 0;                            // this generator's λ, requests/s
  double duration_s = 0;                      // measurement window
  double warmup_s = 0;
  double timeout_s = 5;
  int connections = 1;
  int threads = 1;
  std::uint64_t seed = 1;
  // fio with [workload] trace = true: the prefix of its per-I/O latency logs on that host
  // (--write_lat_log; fio adds _lat.<job>.log); "" records none.
  std::string trace_prefix;
};

class GeneratorAdapter {
 public:
  virtual ~GeneratorAdapter() = default;
  virtual GeneratorKind kind() const = 0;
  // The command that runs it on the generator's host; every word literal (no shell unless the
  // adapter writes one itself).
  virtual std::vector<std::string> argv(const GeneratorRun& run) const = 0;
  // The run's result from its stdout. Throws InputError naming what is missing or impossible.
  virtual LoadResult parse(const std::string& out, const GeneratorRun& run) const = 0;
  // The rate the program's schedule offers when asked for run.rate: its own rounding may miss the
  // asked rate by more than Poisson noise (fio's whole-µs gaps: 2 % at 40,000/s per job).
  virtual double offered_rate(const GeneratorRun& run) const { return run.rate; }
  // Seconds the program may run beyond warm-up + duration + timeout (e.g. pgbench's whole-second -T).
  virtual double extra_time_s(const GeneratorRun& run) const {
    (void)run;
    return 0;
  }
};

// The adapter of w.generator (not wbload). Throws Error for kWbload.
std::unique_ptr<GeneratorAdapter> make_generator_adapter(const WorkloadConfig& w);

// Adds the run's placeholders ({rate}, {duration}, ...) to run.values (for command templates).
void add_run_values(GeneratorRun& run);

// Parsers, exposed for tests and fuzzing.
LoadResult parse_json_output(const std::string& out, const JsonOutputMap& map, const GeneratorRun& run);
LoadResult parse_hdr_output(const std::string& out, const JsonOutputMap& map, const GeneratorRun& run);
// pgbench's per-transaction log lines (PostgreSQL 15: client_id transaction_no time script_no
// time_epoch time_us schedule_lag [retries]), time "skipped" or "failed" for such transactions.
LoadResult parse_pgbench_log(const std::string& log, const GeneratorRun& run);
// fio's --output-format=json+ (generator_fio.cpp).
LoadResult parse_fio_json(const std::string& out, const GeneratorRun& run);
std::unique_ptr<GeneratorAdapter> make_fio_adapter(const WorkloadConfig& w);
// Why a fio argument may not be in [workload] args (it sets an option workbench owns: the rate,
// the window, the seed, the output), or "" if it may.
std::string fio_owned_option(const std::string& arg);

}  // namespace wb
