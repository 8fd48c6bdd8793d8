#pragma once
// FileSet: the files `wbload --protocol file` works on: key k of the mix is DIR/wbload-<k>, a
// regular file of `file_bytes` bytes. The constructor creates them (keeping those that already have
// the right size, so repeated runs skip the writing) and opens each one for the whole run.
// Threads: read-only after construction; I/O threads share the descriptors (pread/pwrite carry their
// own offsets). Failure: wb::InputError for a DIR that does not exist, is not a directory or is not
// writable, or more files than the open-file limit allows; wb::Error for a failed create or write.
#include <cstdint>
#include <string>
#include <vector>

namespace wb {

class FileSet {
 public:
  FileSet(const std::string& dir, std::uint64_t count, std::uint64_t file_bytes);
  ~FileSet() noexcept;  // closes every file
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;

  int fd(std::uint64_t key) const { return fds_[key]; }
  const std::string& path(std::uint64_t key) const { return paths_[key]; }
  std::uint64_t created() const { return created_; }  // files written now, not reused

 private:
  int open_file(const std::string& path, std::uint64_t file_bytes);

  std::vector<int> fds_;
  std::vector<std::string> paths_;
  std::uint64_t created_ = 0;
};

// "what: strerror(err)" as a wb::Error: file mode's one translation of errno.
[[noreturn]] void throw_file_error(const std::string& what, int err);

}  // namespace wb
