// remote_command_line on a real sh, both paths: when the shell leads its own process group (as
// under OpenSSH) and the setsid fallback when it does not; and the waiting shell that the SSH
// executor starts ahead of a command, under dash and bash; remote_start_line's guard.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "harness/local_executor.hpp"
#include "harness/process_identity.hpp"
#include "harness/remote_command.hpp"
#include "harness/shell_quote.hpp"
#include "process_table.hpp"

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

// Runs kWhoAmI: the first line out is the id the remote line reported, then the command's own
// output, which must show that id as its group and session, its environment and its directory.
void check_who_am_i(bool leader) {
  const auto r = run_line(kWhoAmI, leader);
  REQUIRE(r.exit_status == 0);
  const auto nl = r.out.find('\n');
  const std::string pgid = r.out.substr(0, nl);
  CHECK(r.out.substr(nl + 1) == pgid + " " + pgid + " a b\n/usr\n");
}

}  // namespace

TEST_CASE("remote command line: a group leader reports its own group and execs the command") {
  check_who_am_i(true);
}

TEST_CASE("remote command line: a shell that is no group leader falls back to setsid") {
  check_who_am_i(false);
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

namespace {

// Pipes `input` into `shell -c waiting_shell()`, as sshd would run the spare channel's command
// with the executor writing to the channel. The waiting shell is a pipeline member here, not a
// group leader, so the line takes remote_command_line's setsid fallback.
wb::CommandResult run_waiting(const std::string& shell, const std::string& input) {
  auto local = wb::make_local_executor();
  return local->run({{"/bin/sh", "-c",
                      "printf '%s' " + wb::shell_quote(input) + " | " + shell + " -c " +
                          wb::shell_quote(wb::waiting_shell())},
                     {},
                     {},
                     10s});
}

}  // namespace

TEST_CASE("waiting shell: the line it reads runs as the command line would, hostile words literal") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wb_waiting_shell_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::vector<std::string> hostile{"$(touch pwned)", "'; touch pwned #", "two\nlines\n",  "",
                                         " lead",          "back\\slash",      "`touch pwned`", "\"$HOME\""};
  std::vector<std::string> argv{"/bin/sh", "-c", "printf '%s|' \"$@\"; echo; cat; exit 7", "sh"};
  argv.insert(argv.end(), hostile.begin(), hostile.end());
  const wb::CommandSpec spec{argv, {{"WB_X", "x\ny"}}, dir.string(), 0ms};
  std::string expected;
  for (const auto& h : hostile) expected += h + "|";
  for (const std::string shell : {"/bin/sh", "/bin/bash"}) {
    INFO(shell);
    // What follows the line on stdin is the command's own input.
    const auto r = run_waiting(shell, wb::waiting_shell_input(wb::remote_command_line(spec)) + "rest\n");
    CHECK(r.exit_status == 7);
    const auto nl = r.out.find('\n');
    REQUIRE(nl != std::string::npos);
    CHECK(r.out.substr(0, nl).find_first_not_of("0123456789") == std::string::npos);
    CHECK(r.out.substr(nl + 1) == expected + "\nrest\n");
    CHECK_FALSE(std::filesystem::exists(dir / "pwned"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("waiting shell: EOF before a line runs nothing and exits 0") {
  for (const std::string shell : {"/bin/sh", "/bin/bash"}) {
    INFO(shell);
    const auto r = run_waiting(shell, "");
    CHECK(r.exit_status == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
  }
}

TEST_CASE("waiting shell: its input is one line whatever the command line holds") {
  const std::string input = wb::waiting_shell_input("a\n'b'\n\nc");
  CHECK(input == "eval a\"$wb_nl\"''\\''b'\\'''\"$wb_nl\"''\"$wb_nl\"c\n");
  CHECK(std::count(input.begin(), input.end(), '\n') == 1);
}

TEST_CASE("remote start line: the group and its start time first, empty stdin, the group ends with stdin") {
  for (const bool leader : {true, false}) {
    INFO((leader ? "group leader" : "setsid fallback"));
    const std::string marker = wb::test::make_marker();
    const wb::CommandSpec spec{{"/bin/sh", "-c", "read -r x; echo \"stdin:$x.\"; sleep 1000 & wait"},
                               {{"WB_TEST_MARKER", marker}},
                               {},
                               0ms};
    const std::string line = wb::remote_start_line(spec, 300ms);
    // `sleep 1 |` holds the line's stdin open for a second, as an SSH channel would; setsid makes
    // the pipeline member a session leader without forking, as sshd does for a session's shell.
    const std::string run = (leader ? "setsid /bin/sh -c " : "/bin/sh -c ") + wb::shell_quote(line);
    auto local = wb::make_local_executor();
    const auto started = std::chrono::steady_clock::now();
    const auto r = local->run({{"/bin/sh", "-c", "sleep 1 | " + run}, {}, {}, 20s});
    const auto took = std::chrono::steady_clock::now() - started;
    std::istringstream out(r.out);
    std::string first, second;
    std::getline(out, first);
    std::getline(out, second);
    long pgid = 0;
    std::uint64_t ticks = 0;
    std::istringstream words(first);
    REQUIRE(words >> pgid >> ticks);
    CHECK(pgid > 1);
    CHECK(ticks >= wb::this_process().start_ticks);  // started after this test
    CHECK(second == "stdin:.");
    CHECK(r.exit_status == 128 + 15);  // the command's shell died of the guard's SIGTERM
    CHECK(took >= 1s);
    CHECK(took < 5s);
    CHECK(wb::test::survivors_after(marker, 2s).empty());
  }
}
