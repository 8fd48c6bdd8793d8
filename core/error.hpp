#pragma once
// The project's one error policy: exceptions with RAII (see README, "Developer notes").
//
//  - InputError: the user gave us something wrong (a config key, an argument, a --set value).
//    Its message is one line that names what and where (file:line:key for configs). It maps to
//    exit code 2 and is always thrown before anything is written to the store.
//  - Error: anything else that stops a command (a process that could not start, an SQLite
//    failure, a lost SSH connection). Exit code 1 unless the thrower says otherwise.
//
// Foreign error codes (errno, sqlite3, libssh) are translated into these at the boundary, in one
// function per library.
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
