#pragma once
// Poller: one epoll set holding a worker's connected sockets, each registered once, level-triggered,
// watched by the worker's io_context through one descriptor (not Asio's per-socket waits:
// docs/decisions.md#poller); and NativeSocket, the move-only owner of one connected socket.
// Ownership: the Poller owns its epoll descriptor, never the sockets (closing one removes it). Threads:
// the worker's only. Failure: the constructor throws wb::Error if epoll_create1 fails; other calls
// report errno as an error_code and never throw.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/asio.hpp"

namespace wb {

// One connected, non-blocking TCP socket. send() and recv() report EAGAIN as
// asio::error::would_block, a closed peer (recv of 0 bytes) as asio::error::eof.
class NativeSocket {
 public:
  NativeSocket() = default;
  explicit NativeSocket(int fd) noexcept : fd_(fd) {}
  ~NativeSocket() noexcept { close(); }
  NativeSocket(NativeSocket&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  NativeSocket& operator=(NativeSocket&& o) noexcept;
  NativeSocket(const NativeSocket&) = delete;
  NativeSocket& operator=(const NativeSocket&) = delete;

  int fd() const noexcept { return fd_; }
  bool is_open() const noexcept { return fd_ >= 0; }
  std::size_t send(const char* data, std::size_t size, boost::system::error_code& ec) noexcept;
  std::size_t recv(char* data, std::size_t size, boost::system::error_code& ec) noexcept;
  void close() noexcept;

 private:
  int fd_ = -1;
};

class Poller {
 public:
  // A socket that is ready: the key it was added with, and what it is ready for (errors and
  // hang-ups count as both, so the next recv or send reports them).
  struct Ready {
    std::uint64_t key = 0;
    bool readable = false;
    bool writable = false;
  };

  explicit Poller(boost::asio::io_context& io);

  // Watches `fd` for reading (level-triggered); `key` comes back in Ready.
  void add(int fd, std::uint64_t key, boost::system::error_code& ec) noexcept;
  // Also watches `fd` for writing while `on` (a send that did not fit the socket buffer).
  void watch_write(int fd, std::uint64_t key, bool on, boost::system::error_code& ec) noexcept;

  // Calls `handler(error_code)` from the io_context once some socket in the set is ready (or at
  // once if one already is). One wait at a time.
  template <class Handler>
  void async_wait(Handler&& handler) {
    set_.async_wait(boost::asio::posix::descriptor_base::wait_read, std::forward<Handler>(handler));
  }
  // The sockets ready now, without blocking: fills `out` and returns how many (≤ out.size()).
  std::size_t poll(std::span<Ready> out) noexcept;
  void close() noexcept;

 private:
  boost::asio::posix::stream_descriptor set_;  // the epoll descriptor
};

}  // namespace wb
