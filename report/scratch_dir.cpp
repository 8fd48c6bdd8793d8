#include "report/scratch_dir.hpp"

#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): mkdtemp is POSIX, not in <cstdlib>

#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace wb {

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "wb-report-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw Error("report: cannot create a scratch directory in " + pattern);
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path ScratchDir::write(const std::string& name, const std::string& text) const {
  std::filesystem::path p = path_ / name;
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) throw Error("report: cannot write " + p.string());
  return p;
}

std::string ScratchDir::read(const std::string& name) const {
  std::ifstream in(path_ / name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace wb
