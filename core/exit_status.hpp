#pragma once

namespace wb {

// Process exit codes of every workbench executable (ninja's exit_status.h habit).
enum class ExitStatus : int {
  kOk = 0,            // the command did what was asked
  kNegative = 1,      // the question had a negative answer or a check failed
  kUsage = 2,         // bad usage or bad input (config, arguments); nothing was changed
  kInterrupted = 130  // SIGINT / SIGTERM
};

constexpr int to_int(ExitStatus s) { return static_cast<int>(s); }

}  // namespace wb
