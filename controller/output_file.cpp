#include "controller/output_file.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace wb {

void check_output_path(const std::string& flag, const std::string& path) {
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError(fmt::format("{} {}: folder {} does not exist", flag, path, dir.string()));
  if (std::filesystem::is_directory(p, ec)) throw InputError(fmt::format("{} {}: is a folder", flag, path));
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush()) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw Error(fmt::format("cannot write {}", tmp));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error(fmt::format("cannot rename {} to {}: {}", tmp, path, ec.message()));
  }
}

}  // namespace wb
