#include "harness/remote_command.hpp"

#include <fmt/format.h>

#include "harness/shell_quote.hpp"

namespace wb {

std::string remote_command_line(const CommandSpec& spec) {
  std::string run;
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
  return fmt::format("if kill -0 -$$ 2>/dev/null; then echo $$; {}; else exec setsid -w sh -c {}; fi", run,
                     shell_quote("echo $$; " + run));
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
