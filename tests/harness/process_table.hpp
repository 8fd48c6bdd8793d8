#pragma once
// Test helper: looks through /proc for processes that carry a marker, so a test can prove that
// nothing it started survives. The tests run as root, so every /proc/PID/environ is readable.
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace wb::test {

// A marker unique to this test run, e.g. "wbmark-12345-987654".
inline std::string make_marker() {
  std::random_device rd;
  return "wbmark-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
}

// Empty when the file cannot be read: libstdc++'s filebuf throws when read(2) fails, as it does
// for /proc/PID/* of a process that exited after the open.
inline std::string read_whole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  try {
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    return {};
  }
}

// Pids (other than zombies) whose environment or command line contains `marker`.
inline std::vector<pid_t> pids_with_marker(const std::string& marker) {
  std::vector<pid_t> pids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == ::getpid()) continue;
    const std::string stat = read_whole(entry.path() / "stat");
    const auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') continue;
    if (read_whole(entry.path() / "environ").find(marker) != std::string::npos ||
        read_whole(entry.path() / "cmdline").find(marker) != std::string::npos) {
      pids.push_back(pid);
    }
  }
  return pids;
}

// Pids of the processes named `comm` (/proc/PID/comm: the program, not a shell about to exec
// it) whose environment or command line contains `marker`.
inline std::vector<pid_t> pids_named(const std::string& comm, const std::string& marker) {
  std::vector<pid_t> named;
  for (pid_t pid : pids_with_marker(marker)) {
    std::string c = read_whole("/proc/" + std::to_string(pid) + "/comm");
    while (!c.empty() && c.back() == '\n') c.pop_back();
    if (c == comm) named.push_back(pid);
  }
  return named;
}

// The first process named `comm` that carries `marker`, waiting up to `limit` for one.
inline std::optional<pid_t> wait_for_process(const std::string& comm, const std::string& marker,
                                             std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto pids = pids_named(comm, marker);
    if (!pids.empty()) return pids.front();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

// Waits up to `limit` for the marker to vanish from the process table; returns the survivors.
inline std::vector<pid_t> survivors_after(const std::string& marker,
                                          std::chrono::milliseconds limit = std::chrono::seconds(3)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  auto pids = pids_with_marker(marker);
  while (!pids.empty() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pids = pids_with_marker(marker);
  }
  return pids;
}

}  // namespace wb::test
