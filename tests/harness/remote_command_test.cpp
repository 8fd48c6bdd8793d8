// remote_command_line on a real sh, both paths: when the shell leads its own process group (as
// under OpenSSH) and the setsid fallback when it does not.
#include <catch2/catch.hpp>

#include "harness/local_executor.hpp"
#include "harness/remote_command.hpp"
#include "harness/shell_quote.hpp"

using namespace std::chrono_literals;

namespace {

// Runs the remote line under /bin/sh; `leader` chooses whether that sh leads its group
// (LocalExecutor starts each command in its own session) or is a child inside another group.
wb::CommandResult run_line(const wb::CommandSpec& spec, bool leader) {
  auto local = wb::make_local_executor();
  const std::string line = wb::remote_command_line(spec);
  if (leader) return local->run({{"/bin/sh", "-c", line}, {}, {}, 10s});
  return local->run({{"/bin/sh", "-c", "/bin/sh -c " + wb::shell_quote(line) + "; exit $?"}, {}, {}, 10s});
}

// The command prints its own process group and session; both must equal the reported id.
const wb::CommandSpec kWhoAmI{
    {"/bin/sh", "-c", "read -r _ _ _ _ g s _ </proc/$$/stat; echo \"$g $s $WB_X\"; pwd"},
    {{"WB_X", "a b"}},
    "/usr",
    0ms};

}  // namespace

TEST_CASE("remote command line: a group leader reports its own group and execs the command") {
  const auto r = run_line(kWhoAmI, true);
  REQUIRE(r.exit_status == 0);
  const auto nl = r.out.find('\n');
  const std::string pgid = r.out.substr(0, nl);
  CHECK(r.out.substr(nl + 1) == pgid + " " + pgid + " a b\n/usr\n");
}

TEST_CASE("remote command line: a shell that is no group leader falls back to setsid") {
  const auto r = run_line(kWhoAmI, false);
  REQUIRE(r.exit_status == 0);
  const auto nl = r.out.find('\n');
  const std::string pgid = r.out.substr(0, nl);
  CHECK(r.out.substr(nl + 1) == pgid + " " + pgid + " a b\n/usr\n");
}

TEST_CASE("remote command line: through the setsid fallback a signal still ends the shell's process") {
  const wb::CommandSpec spec{{"/bin/sh", "-c", "echo out; echo err >&2; kill -TERM $$"}, {}, {}, 0ms};
  const auto r = run_line(spec, false);
  // setsid did not fork, so the command's death by SIGTERM is the inner shell's own: the outer
  // sh reports it as 128 + 15, and under sshd it becomes the channel's exit-signal.
  CHECK(r.exit_status == 143);
  CHECK_THAT(r.err, Catch::StartsWith("err\n"));  // then the outer sh's "Terminated"
  CHECK(r.out.substr(r.out.find('\n') + 1) == "out\n");
}
