// refserver — the reference server under test: a real TCP server whose worker threads and
// emulated disks are configuration factors, so its peak rate has the shape of [003 Fig. 2].
//
// Usage:
//   refserver --port P --threads N --disks D [options]
//     --port P            TCP port; 0 picks a free one. Prints "ready <port>" once accepting.
//     --bind ADDR         listen address (default 0.0.0.0)
//     --threads N         worker threads (thread queue: one FIFO, N servers)
//     --disks D           emulated disks (disk queue: one FIFO, D servers, one op at a time each)
//     --io-threads K      Asio threads for connections and framing (default 1)
//     --cpu-ms X          mean CPU service per read/write/metadata request (default 1)
//     --cpu-dist DIST     exponential | lognormal | deterministic (default exponential)
//     --cpu-cv C          lognormal coefficient of variation (default 1)
//     --cpu-mode spin|sleep  spin burns thread CPU time (needs cores); sleep only holds the
//                         thread, so capacity does not depend on the host's cores (default spin)
//     --disk-ms X         mean random-access disk service per read/write (default 10)
//     --disk-dist DIST    as --cpu-dist (default exponential)
//     --disk-cv C         (default 1)
//     --seq-factor F      sequential ops (request flag bit 0) cost F * disk-ms (default 0.3)
//     --seed S            seed of the service-time streams (default random; shown in stats)
//   Fault flags (see sut/request_service.hpp for exact semantics):
//     --slow-disk I:F     disk I (0-based) is F times slower; repeatable
//     --serialize-above M a request starting while more than M workers are busy runs under one
//                         global lock (CPU and disk)
//     --create-cost-ms X  every write creates a file and costs X extra CPU ms per 1000 files
//                         created before it
//     --stall-every S --stall-for T   every S seconds, no worker starts a request for T seconds
//   --version             prints "refserver <version>"
//   --help                this list
// Protocol: core/rpc_protocol.hpp; stats JSON shape: sut/stage_stats.hpp.
// Exit status: 0 after SIGINT/SIGTERM, 1 when it cannot listen, 2 for bad arguments (one line
// on stderr).
#include <csignal>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "core/error.hpp"
#include "sut/refserver.hpp"
#include "sut/server_options.hpp"

#ifndef WB_VERSION
#define WB_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  using wb::ExitStatus;
  wb::sut::ServerOptions options;
  wb::sut::RawOptions raw;
  CLI::App app{"refserver: reference server under test (threads and disks are factors)", "refserver"};
  app.set_version_flag("--version", std::string("refserver ") + WB_VERSION);
  wb::sut::add_server_options(app, options, raw);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (const auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    std::fprintf(stderr, "refserver: %s (see --help)\n", what.c_str());
    return wb::to_int(ExitStatus::kUsage);
  }
  try {
    wb::sut::finish_options(options, raw);
    // A peer that disconnects mid-write must not kill the server.
    std::signal(SIGPIPE, SIG_IGN);
    wb::sut::Refserver server(options);
    std::printf("ready %u\n", static_cast<unsigned>(server.port()));
    std::fflush(stdout);
    server.run();
  } catch (const wb::Error& e) {
    std::fprintf(stderr, "refserver: %s\n", e.what());
    return wb::to_int(e.status());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "refserver: %s\n", e.what());
    return wb::to_int(ExitStatus::kNegative);
  }
  return wb::to_int(ExitStatus::kOk);
}
