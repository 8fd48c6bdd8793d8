#include "harness/process_identity.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace wb {

std::string this_host_name() {
  if (const char* name = std::getenv("WB_HOST_NAME"); name != nullptr && *name != '\0') return name;
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

std::optional<std::uint64_t> process_start_ticks(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!in || !std::getline(in, stat)) return std::nullopt;
  // Field 2 (comm) is in parentheses and may hold spaces: count fields after the last ')'.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  // Fields 3.. follow: the state (a zombie has exited: it owns nothing), then starttime is 22.
  for (int i = 3; i <= 22; ++i) {
    if (!(rest >> field)) return std::nullopt;
    if (i == 3 && (field == "Z" || field == "X")) return std::nullopt;
  }
  try {
    return std::stoull(field);
  } catch (...) {
    return std::nullopt;
  }
}

const OwnerId& this_process() {
  static const OwnerId kSelf = [] {
    OwnerId o;
    o.host = this_host_name();
    o.pid = getpid();
    o.start_ticks = process_start_ticks(getpid()).value_or(0);
    return o;
  }();
  return kSelf;
}

bool alive_here(const OwnerId& owner) {
  if (owner.pid <= 0) return false;
  std::optional<std::uint64_t> ticks = process_start_ticks(static_cast<pid_t>(owner.pid));
  return ticks && *ticks == owner.start_ticks;
}

}  // namespace wb
