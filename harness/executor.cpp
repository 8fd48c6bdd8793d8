#include "harness/executor.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "harness/shell_quote.hpp"

namespace wb {
namespace {

bool valid_env_name(const std::string& name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && digit))) return false;
  }
  return true;
}

}  // namespace

void check_command_spec(const CommandSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) throw InputError("cannot run an empty command");
  for (const auto& [name, value] : spec.env) {
    if (!valid_env_name(name)) {
      throw InputError(
          fmt::format("environment variable name \"{}\" for command {} is not [A-Za-z_][A-Za-z0-9_]*", name,
                      shell_join(spec.argv)));
    }
  }
}

std::string output_tail(const std::string& text, std::size_t n) {
  std::string t = text.size() > n ? "..." + text.substr(text.size() - n) : text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  for (char& c : t) {
    if (c == '\n') c = ' ';
  }
  return t;
}

bool ensure_binary(Executor& target, const std::string& local_path, const std::string& remote_path) {
  constexpr std::chrono::seconds kVersionDeadline{10};
  auto local = make_local_executor();
  const CommandResult mine = local->run({{local_path, "--version"}, {}, {}, kVersionDeadline});
  if (!mine.ok() || mine.out.empty()) {
    throw Error(fmt::format("{} --version failed (exit {}): {}", local_path, mine.exit_status, mine.err));
  }
  const auto remote_version = [&] {
    return target.run({{remote_path, "--version"}, {}, {}, kVersionDeadline});
  };
  const CommandResult theirs = remote_version();
  if (theirs.ok() && theirs.out == mine.out) return false;

  const std::string dir = std::filesystem::path(remote_path).parent_path().string();
  if (!dir.empty()) {
    const CommandResult mk = target.run({{"mkdir", "-p", dir}, {}, {}, kVersionDeadline});
    if (!mk.ok()) throw Error(fmt::format("{}: mkdir -p {} failed: {}", target.describe(), dir, mk.err));
  }
  target.upload(local_path, remote_path, 0755);
  const CommandResult after = remote_version();
  if (!after.ok() || after.out != mine.out) {
    throw Error(fmt::format("{}: {} --version after upload says \"{}\" (exit {}), expected \"{}\"",
                            target.describe(), remote_path, after.out, after.exit_status, mine.out));
  }
  return true;
}

}  // namespace wb
