#pragma once
// Who owns a lease or started a process: a controller named by its host, its pid and the pid's
// start time (so a reused pid is never mistaken for the owner). Plain data; whether an owner is
// alive is the harness's question (harness/process_identity.hpp).
#include <cstdint>
#include <string>

namespace wb {

struct OwnerId {
  std::string host;  // WB_HOST_NAME if set, else gethostname()
  std::int64_t pid = 0;
  std::uint64_t start_ticks = 0;  // /proc/PID/stat field 22: clock ticks after boot

  // "host:pid", for messages.
  std::string describe() const { return host + ":" + std::to_string(pid); }
  bool operator==(const OwnerId&) const = default;
};

}  // namespace wb
