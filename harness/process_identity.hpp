#pragma once
// The controller this process is (core/owner.hpp), and whether another one on this host lives:
// leases and the process table in the store use it to tell a dead controller from a live one
// (DESIGN.md "Security and failure").
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/owner.hpp"

namespace wb {

// The calling process. Cached after the first call; thread-safe.
const OwnerId& this_process();

// This machine's name as leases record it: $WB_HOST_NAME when set (two controllers that share a
// store but not a kernel must have different names), else gethostname().
std::string this_host_name();

// The start time of `pid` in clock ticks after boot; nullopt when no such process exists or it
// has exited and waits to be reaped (a zombie).
std::optional<std::uint64_t> process_start_ticks(pid_t pid);

// Whether `owner`, on this host, is still running: its pid exists and started when it did.
// Meaningless for another host's owner (returns false only when the host matches).
bool alive_here(const OwnerId& owner);

}  // namespace wb
