// Test helper: a stand-in controller for the tests of "nothing outlives its controller". Starts
// one command through an executor and then waits to be killed:
//   guard_probe local start|run CMD...
//   guard_probe ssh HOST PORT USER KEY KNOWN_HOSTS start|run CMD...
// start: prints "started PGID TICKS" once Executor::start returned; run: prints "running" just
// before Executor::run (which then blocks). Exit 2 on bad usage, 1 on an error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "harness/local_executor.hpp"
#include "harness/ssh_executor.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    std::unique_ptr<wb::Executor> ex;
    std::size_t at = 0;
    if (args.size() >= 3 && args[0] == "local") {
      ex = wb::make_local_executor();
      at = 1;
    } else if (args.size() >= 8 && args[0] == "ssh") {
      wb::SshOptions o;
      o.host = args[1];
      o.port = std::stoi(args[2]);
      o.user = args[3];
      o.identity_file = args[4];
      o.known_hosts_file = args[5];
      o.global_known_hosts_file = "";
      o.kill_grace = std::chrono::milliseconds(300);
      ex = wb::make_ssh_executor(o);
      at = 6;
    } else {
      std::fprintf(stderr, "usage: guard_probe local|ssh ... start|run CMD...\n");
      return 2;
    }
    const std::string mode = args[at];
    const wb::CommandSpec spec{std::vector<std::string>(args.begin() + static_cast<long>(at) + 1, args.end()),
                               {},
                               {},
                               std::chrono::milliseconds(0)};
    if (mode == "start") {
      auto p = ex->start(spec);
      const wb::ProcessGroup g = p->group();
      std::printf("started %ld %llu\n", g.pgid, static_cast<unsigned long long>(g.start_ticks));
      std::fflush(stdout);
      while (true) ::pause();
    }
    if (mode == "run") {
      std::printf("running\n");
      std::fflush(stdout);
      ex->run(spec);
      return 0;
    }
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "guard_probe: %s\n", e.what());
    return 1;
  }
}
