#include "workloads/cli.hpp"

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "core/trial_limits.hpp"
#include "workloads/engine.hpp"
#include "workloads/histogram.hpp"

#ifndef WB_VERSION
#define WB_VERSION "0.0.0"
#endif

namespace wb {
namespace {

constexpr const char* kDescription = R"(wbload: open-loop load generator (workbench).

Offers requests at a fixed rate λ (--rate) whether or not the server keeps up, and measures
every request's latency from the time it was *meant* to be sent, so server stalls show up in
the percentiles (no coordinated omission). Runs a warm-up (not counted), then a measurement
window of --duration seconds, then waits at most --timeout for the last answers.

Examples:
  wbload --protocol http --target http://127.0.0.1:8080/index.html --rate 20000 --duration 10
  wbload --protocol rpc --target 127.0.0.1:7000 --rate 500 --duration 30 --warmup 5 \
         --mix workloads/mixes/rpc_web.toml --arrivals poisson --json
  wbload --protocol redis --target 127.0.0.1:6379 --rate 50000 --duration 10 --threads 2
  wbload --protocol file --target /mnt/test --rate 2000 --duration 10 --connections 8 \
         --mix workloads/mixes/file_db_tp.toml --trace ops.csv

Result: achieved rate = successful responses received inside the window / duration; "late
sends" counts requests that left later than --late-ms after their intended time (no free
connection, or the generator itself fell behind: if late sends are many, the numbers describe
wbload as much as the server). With --json one JSON object is printed, including the compact
latency histogram that the controller merges across generators.
)";

}  // namespace

std::string wbload_version() {
  return std::string("wbload ") + WB_VERSION + " (histogram " + LatencyHistogram::kEncoding +
         ", rpc framing v1)";
}

namespace {

struct WbloadArgs {
  std::string protocol, target, mix_file, arrivals = "constant";
  LoadOptions o;
  bool json = false, version = false;
};

void add_options(CLI::App& app, WbloadArgs& a) {
  app.add_option("--protocol", a.protocol, "rpc | http | redis | memcached | file")->required();
  app.add_option("--target", a.target,
                 "HOST:PORT (rpc, redis, memcached), http://HOST:PORT/PATH, or a directory (file)")
      ->required();
  app.add_option("--rate", a.o.rate, "offered rate λ in requests/s (all threads together)")
      ->required()
      ->check(cli::finite_number(1e-3, kMaxRate));
  app.add_option("--duration", a.o.duration_s, "measurement window in seconds")
      ->required()
      ->check(cli::finite_number(1e-3, kMaxSeconds));
  app.add_option("--warmup", a.o.warmup_s, "warm-up seconds before the window, not counted (default 0)")
      ->check(cli::finite_number(0, kMaxSeconds));
  app.add_option("--connections", a.o.connections,
                 "connections opened before the start; file: I/O threads (default 16)")
      ->transform(cli::whole_number(1, kMaxConnections));
  app.add_option("--max-connections", a.o.max_connections,
                 "pool limit when all connections are busy (default 4 x --connections)")
      ->transform(cli::whole_number(1, kMaxConnections));
  app.add_option("--threads", a.o.threads,
                 "worker threads, each with its own event loop and λ/threads (default 1)")
      ->transform(cli::whole_number(1, kMaxGeneratorThreads));
  app.add_option("--mix", a.mix_file, "request mix TOML (see workloads/mixes/); default: a built-in mix")
      ->check(CLI::ExistingFile);
  app.add_option("--arrivals", a.arrivals, "constant | poisson inter-arrival times (default constant)")
      ->check(CLI::IsMember({"constant", "poisson"}));
  app.add_option("--timeout", a.o.timeout_s,
                 "per-request timeout in seconds from the intended send time (default 5)")
      ->check(cli::finite_number(1e-3, kMaxTimeoutSeconds));
  app.add_option("--late-ms", a.o.late_ms,
                 "a send starting later than this after its intended time is late (default 1)")
      ->check(cli::finite_number(0, 1e6));
  app.add_option("--seed", a.o.seed, "random seed for arrivals and the mix (default 1)")
      ->transform(cli::seed_number());
  app.add_option("--intervals", a.o.interval_s,
                 "also report figures per interval of this many seconds (e.g. 1)")
      ->check(cli::finite_number(0, kMaxSeconds));
  app.add_option("--trace", a.o.trace_path,
                 "write every counted operation to this CSV (op,file,offset,size,start_s,duration_s)");
  app.add_flag("--json", a.json, "print one JSON object instead of text");
  app.add_flag("--version", a.version, "print the version line and exit");
}

// The options CLI11 cannot check alone (their relations, the mix file's contents) into a.o.
void finish_options(WbloadArgs& a) {
  LoadOptions& o = a.o;
  o.protocol = parse_protocol(a.protocol);
  o.target = parse_target(a.target, o.protocol);
  o.arrivals = a.arrivals == "poisson" ? Arrivals::kPoisson : Arrivals::kConstant;
  o.mix = a.mix_file.empty() ? default_mix(o.protocol) : load_mix(a.mix_file, o.protocol);
  if (o.max_connections > 0 && o.max_connections < o.connections)
    throw InputError("--max-connections (" + std::to_string(o.max_connections) +
                     ") is below --connections (" + std::to_string(o.connections) + ")");
  if (o.interval_s > 0 && (o.interval_s < 0.01 || o.duration_s / o.interval_s > 100000))
    throw InputError("--intervals " + std::to_string(o.interval_s) +
                     ": must be at least 0.01 s and at most 100000 intervals per run");
  if (o.protocol == Protocol::kFile && o.threads > 1)
    throw InputError("--threads: file mode has one arrival thread and --connections I/O threads");
  if (o.threads > o.connections)
    throw InputError("--threads (" + std::to_string(o.threads) + ") exceeds --connections (" +
                     std::to_string(o.connections) + "): every thread needs a connection");
}

}  // namespace

int wbload_main(int argc, char** argv) {
  CLI::App app(kDescription, "wbload");
  app.get_formatter()->column_width(34);
  WbloadArgs a;
  add_options(app, a);

  // --version and --help must work without the required options.
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--version") {
      std::cout << wbload_version() << "\n";
      return 0;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "wbload: " << e.what() << " (see wbload --help)\n";
    return to_int(ExitStatus::kUsage);
  }
  try {
    finish_options(a);
    LoadResult r = run_load(a.o);
    if (a.json) {
      std::cout << to_json(r).dump() << "\n";
    } else {
      std::cout << wbload_version() << "  " << a.protocol << " " << a.target << "  mix " << a.o.mix.name
                << "\n"
                << to_text(r);
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "wbload: " << e.what() << "\n";
    return to_int(e.status());
  } catch (const std::exception& e) {
    std::cerr << "wbload: " << e.what() << "\n";
    return to_int(ExitStatus::kNegative);
  }
}

}  // namespace wb
