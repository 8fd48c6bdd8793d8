#pragma once
// The project's one error policy: exceptions with RAII (README, "Developer notes").
//  - InputError: the user gave something wrong (a config key, an argument, a --set value): one line
//    naming what and where (file:line:key for configs), exit code 2, thrown before the store is written.
//  - Error: anything else that stops a command (a process start, SQLite, a lost SSH connection): exit
//    code 1 unless the thrower says otherwise. Foreign error codes are translated at the boundary.
#include <stdexcept>
#include <string>

#include "core/exit_status.hpp"

namespace wb {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, ExitStatus status = ExitStatus::kNegative)
      : std::runtime_error(what), status_(status) {}
  ExitStatus status() const noexcept { return status_; }

 private:
  ExitStatus status_;
};

class InputError : public Error {
 public:
  explicit InputError(const std::string& what) : Error(what, ExitStatus::kUsage) {}
};

// Thrown when SIGINT/SIGTERM asked the command to stop; carries exit code 130.
class Interrupted : public Error {
 public:
  Interrupted() : Error("interrupted", ExitStatus::kInterrupted) {}
};

// "what: strerror(errno)" as an Error.
[[noreturn]] void throw_errno(const std::string& what, int err);

}  // namespace wb
