#include "workloads/file_set.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "core/error.hpp"

namespace wb {
namespace {

constexpr std::size_t kFillChunk = std::size_t{1} << 20;
constexpr std::uint64_t kSpareDescriptors = 64;  // stdio, the trace file, whatever the runtime opens

void check_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    throw InputError("--target " + dir + ": " + std::strerror(errno) + " (file mode needs a directory)");
  if (!S_ISDIR(st.st_mode)) throw InputError("--target " + dir + ": not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError("--target " + dir + ": not writable: " + std::strerror(errno));
}

// Every file stays open for the run: raise the soft limit as far as the hard one allows.
void reserve_descriptors(std::uint64_t count) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) throw_file_error("getrlimit", errno);
  std::uint64_t need = count + kSpareDescriptors;
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < need) {
    lim.rlim_cur = lim.rlim_max == RLIM_INFINITY ? need : std::min<std::uint64_t>(need, lim.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &lim);
    ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < need)
    throw InputError("file mode keeps its " + std::to_string(count) +
                     " files open, but the open-file limit is " + std::to_string(lim.rlim_cur) +
                     " (lower [keys] count or raise ulimit -n)");
}

// Incompressible bytes, so a compressing file system stores (and reads) all of them.
const std::vector<char>& fill_data() {
  static const std::vector<char> kData = [] {
    std::vector<char> d(kFillChunk);
    std::mt19937_64 rng(42);
    for (auto& c : d) c = static_cast<char>(rng());
    return d;
  }();
  return kData;
}

}  // namespace

void throw_file_error(const std::string& what, int err) { throw Error(what + ": " + std::strerror(err)); }

FileSet::FileSet(const std::string& dir, std::uint64_t count, std::uint64_t file_bytes) {
  check_dir(dir);
  reserve_descriptors(count);
  fds_.reserve(count);
  paths_.reserve(count);
  try {
    for (std::uint64_t k = 0; k < count; ++k) {
      paths_.push_back(dir + "/wbload-" + std::to_string(k));
      fds_.push_back(open_file(paths_.back(), file_bytes));
    }
  } catch (...) {
    for (int fd : fds_) ::close(fd);  // no destructor runs for a throwing constructor
    throw;
  }
}

FileSet::~FileSet() noexcept {
  for (int fd : fds_) ::close(fd);
}

int FileSet::open_file(const std::string& path, std::uint64_t file_bytes) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw_file_error("cannot open " + path, errno);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == file_bytes)
    return fd;  // from an earlier run
  ++created_;
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    throw_file_error(std::string(what) + " " + path, err);
  };
  if (::ftruncate(fd, 0) != 0) fail("cannot truncate");
  const std::vector<char>& data = fill_data();
  for (std::uint64_t at = 0; at < file_bytes;) {
    auto n = static_cast<std::size_t>(std::min<std::uint64_t>(data.size(), file_bytes - at));
    ssize_t w = ::pwrite(fd, data.data(), n, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail("cannot write");
    at += static_cast<std::uint64_t>(w);
  }
  return fd;
}

}  // namespace wb
