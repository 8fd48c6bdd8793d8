#include "workloads/poller.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace wb {
namespace {

constexpr std::size_t kMaxEvents = 256;

// errno -> error_code, the one translation for this file. EAGAIN and EWOULDBLOCK both become
// asio::error::would_block so callers compare against one value.
boost::system::error_code from_errno(int err) {
  if (err == EAGAIN || err == EWOULDBLOCK) return boost::asio::error::would_block;
  return {err, boost::system::system_category()};
}

}  // namespace

NativeSocket& NativeSocket::operator=(NativeSocket&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

std::size_t NativeSocket::send(const char* data, std::size_t size, boost::system::error_code& ec) noexcept {
  for (;;) {
    ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
    if (n >= 0) {
      ec.clear();
      return static_cast<std::size_t>(n);
    }
    if (errno == EINTR) continue;
    ec = from_errno(errno);
    return 0;
  }
}

std::size_t NativeSocket::recv(char* data, std::size_t size, boost::system::error_code& ec) noexcept {
  for (;;) {
    ssize_t n = ::recv(fd_, data, size, 0);
    if (n > 0) {
      ec.clear();
      return static_cast<std::size_t>(n);
    }
    if (n == 0) {
      ec = boost::asio::error::eof;
      return 0;
    }
    if (errno == EINTR) continue;
    ec = from_errno(errno);
    return 0;
  }
}

void NativeSocket::close() noexcept {
  if (fd_ >= 0) ::close(fd_);  // also leaves every epoll set (no other descriptor refers to it)
  fd_ = -1;
}

Poller::Poller(boost::asio::io_context& io) : set_(io) {
  int fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) throw Error(std::string("epoll_create1: ") + std::strerror(errno));
  set_.assign(fd);
}

void Poller::add(int fd, std::uint64_t key, boost::system::error_code& ec) noexcept {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.u64 = key;
  if (::epoll_ctl(set_.native_handle(), EPOLL_CTL_ADD, fd, &ev) != 0)
    ec = from_errno(errno);
  else
    ec.clear();
}

void Poller::watch_write(int fd, std::uint64_t key, bool on, boost::system::error_code& ec) noexcept {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0u);
  ev.data.u64 = key;
  if (::epoll_ctl(set_.native_handle(), EPOLL_CTL_MOD, fd, &ev) != 0)
    ec = from_errno(errno);
  else
    ec.clear();
}

std::size_t Poller::poll(std::span<Ready> out) noexcept {
  epoll_event events[kMaxEvents];
  int max = static_cast<int>(std::min(out.size(), kMaxEvents));
  int n;
  do {
    n = ::epoll_wait(set_.native_handle(), events, max, 0);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return 0;
  for (int i = 0; i < n; ++i) {
    std::uint32_t e = events[i].events;
    bool failed = (e & (EPOLLERR | EPOLLHUP)) != 0;
    out[static_cast<std::size_t>(i)] = {events[i].data.u64, failed || (e & (EPOLLIN | EPOLLRDHUP)) != 0,
                                        failed || (e & EPOLLOUT) != 0};
  }
  return static_cast<std::size_t>(n);
}

void Poller::close() noexcept {
  boost::system::error_code ignored;
  set_.close(ignored);
}

}  // namespace wb
