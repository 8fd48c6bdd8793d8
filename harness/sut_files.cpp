#include "harness/sut_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "harness/shell_quote.hpp"

namespace wb {

void write_sut_file(Executor& executor, const std::string& host, const SutFile& file,
                    const std::map<std::string, std::string>& values) {
  const std::string text = expand_file_template(file.text, values);
  const std::filesystem::path target = expand_file_template(file.path, values);
  const CommandResult made = executor.run(
      CommandSpec{{"mkdir", "-p", target.parent_path().string()}, {}, {}, std::chrono::seconds(30)});
  if (!made.ok())
    throw Error(fmt::format("cannot create {} on {} for {}: {}", target.parent_path().string(), host,
                            file.source, output_tail(made.err)));
  char scratch[] = "/tmp/wb-sut-file-XXXXXX";
  const int fd = ::mkstemp(scratch);
  if (fd < 0) throw Error(fmt::format("cannot create a scratch file for {}", file.source));
  ::close(fd);
  try {
    std::ofstream(scratch, std::ios::binary | std::ios::trunc) << text;
    executor.upload(scratch, target.string(), 0644);
  } catch (...) {
    ::unlink(scratch);
    throw;
  }
  ::unlink(scratch);
}

}  // namespace wb
