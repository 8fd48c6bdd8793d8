// Where the programs workbench ships are, and how a [[hosts]] entry becomes an Executor
// (declared in real_trial_runner.hpp).
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "harness/real_trial_runner.hpp"
#include "harness/ssh_executor.hpp"

namespace wb {

namespace fs = std::filesystem;

ProgramPaths locate_programs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("WB_BIN_DIR")) dirs.emplace_back(env);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path d = self.parent_path();
    dirs.push_back(d);                       // installed side by side
    dirs.push_back(d / ".." / "workloads");  // the build tree: build/controller/workbench
    dirs.push_back(d / ".." / "sut");
  }
  auto find = [&](const char* name) {
    for (const auto& d : dirs) {
      fs::path p = d / name;
      if (fs::exists(p)) return fs::canonical(p).string();
    }
    throw Error(
        fmt::format("cannot find the {} program next to workbench (set WB_BIN_DIR to its folder)", name));
  };
  return ProgramPaths{find("wbload"), find("refserver")};
}

namespace {

SshOptions ssh_options(const HostConfig& h) {
  SshOptions o;
  o.host = h.address;
  o.port = h.port;
  o.user = h.user;
  o.identity_file = h.identity;
  o.known_hosts_file = h.known_hosts;
  o.accept_new = h.accept_new;
  o.shell_ahead = h.shell_ahead;
  return o;
}

}  // namespace

std::unique_ptr<Executor> connect_host(const HostConfig& h) {
  if (h.local) return make_local_executor();
  return make_ssh_executor(ssh_options(h));
}

std::string host_description(const HostConfig& h) {
  return h.local ? "local" : describe_ssh_host(ssh_options(h));
}

}  // namespace wb
