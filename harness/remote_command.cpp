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

}  // namespace wb
