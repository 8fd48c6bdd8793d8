#include "harness/remote_command.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "harness/shell_quote.hpp"

namespace wb {

namespace {

// `prefix` runs in the shell that execs the command, after it knows it leads its group.
std::string command_line(const CommandSpec& spec, const std::string& prefix) {
  std::string run = prefix;
  if (spec.cwd) run += "cd " + shell_quote(*spec.cwd) + " && ";
  run += "exec ";
  if (!spec.env.empty()) {
    run += "env --";
    for (const auto& [k, v] : spec.env) {
      run += ' ';
      run += shell_quote(fmt::format("{}={}", k, v));
    }
    run += " ";
  }
  run += shell_join(spec.argv);
  // A process group $$ exists only if this shell leads it: a pid is never reused while a group
  // of that id exists, and sh -c does not leave a group it created. One kill(2), no file read.
  return fmt::format("if kill -0 -$$ 2>/dev/null; then {}; else exec setsid -w sh -c {}; fi", run,
                     shell_quote(run));
}

}  // namespace

std::string remote_command_line(const CommandSpec& spec) { return command_line(spec, "echo $$; "); }

std::string remote_start_line(const CommandSpec& spec, std::chrono::milliseconds grace) {
  const long steps = std::max<long>(1, static_cast<long>(grace.count()) / 50);
  // Builtins only up to the guard's fork: field 22 of /proc/$$/stat is the 20th word after the name's
  // ")"; $$ is still the leader's pid in the guard, which ignores SIGTERM only once it begins killing.
  // A zombie leader counts as running (docs/decisions.md#process-guard).
  const std::string guard = fmt::format(
      "(trap '' INT QUIT; while read -r wb_x; do :; done; trap '' TERM; kill -TERM -$$; wb_i=0; "
      "while [ $wb_i -lt {} ] && kill -0 $$; do wb_s=; IFS= read -r wb_s </proc/$$/stat; "
      "case ${{wb_s##*\") \"}} in Z*) break;; esac; sleep 0.05; wb_i=$((wb_i+1)); done; kill -KILL -$$) "
      "<&3 >/dev/null 2>&1 & exec 3<&-; ",
      steps);
  return command_line(spec,
                      "wb_s=; IFS= read -r wb_s </proc/$$/stat; wb_s=${wb_s##*\") \"}; set -- $wb_s; "
                      "echo $$ ${20}; exec 3<&0 </dev/null; " +
                          guard);
}

std::string waiting_shell() {
  // `read` fails at EOF without a line: exit, run nothing. IFS= keeps leading blanks, -r keeps
  // backslashes; the variables are not exported, so the command's environment is unchanged.
  return "wb_nl='\n'; IFS= read -r wb_line || exit 0; eval \"$wb_line\"";
}

std::string waiting_shell_input(const std::string& command_line) {
  std::string line = "eval ";
  std::size_t from = 0;
  while (true) {
    const std::size_t nl = command_line.find('\n', from);
    line += shell_quote(command_line.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
    if (nl == std::string::npos) break;
    line += "\"$wb_nl\"";
    from = nl + 1;
  }
  line += '\n';
  return line;
}

}  // namespace wb
