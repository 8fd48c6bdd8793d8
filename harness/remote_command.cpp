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
  // Field 5 of /proc/PID/stat is the process group ("PID (comm) STATE PPID PGRP ...").
  return fmt::format(
      "if read -r _ _ _ _ g _ </proc/$$/stat 2>/dev/null && [ \"$g\" = \"$$\" ]; then echo $$; {}; "
      "else exec setsid -w sh -c {}; fi",
      run, shell_quote("echo $$; " + run));
}

}  // namespace wb
