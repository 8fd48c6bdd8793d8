// Worker::Impl's connections: opening, adopting into the poller, finding by an event's key,
// handing out and closing (see worker_impl.hpp).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "workloads/worker_impl.hpp"

namespace wb {
using namespace worker_detail;  // Request, Conn, kReadChunk (worker_impl.hpp)

// ---- connections ----------------------------------------------------------------------
void Worker::Impl::maybe_open() {
  if (pending_.size() > connecting_ && static_cast<int>(conns_.size()) < plan_.max_connections) open();
}

void Worker::Impl::open() {
  auto c = std::make_shared<Conn>(io_, ++serial_);
  c->in.resize(kReadChunk);
  conns_.push_back(c);
  ++connecting_;
  c->connector.async_connect(ep_, [this, c](boost::system::error_code ec) {
    if (c->state == Conn::State::kClosed) return;
    if (!ec) ec = adopt(c);
    if (ec) {
      close(c);  // also leaves the connecting count
      // A refused connection fails the oldest waiting request, so a dead server produces
      // errors at the offered rate instead of a silent backlog.
      if (!pending_.empty()) {
        Request r = pending_.front();
        pending_.pop_front();
        fail_request(r, ErrorKind::kConnect);
      }
      maybe_open();
      return;
    }
    --connecting_;
    c->state = Conn::State::kIdle;
    became_idle(c);
  });
}

// Moves a connected socket from Asio's reactor into the poller (see poller.hpp for why).
boost::system::error_code Worker::Impl::adopt(const ConnPtr& c) {
  boost::system::error_code ec;
  c->connector.set_option(tcp::no_delay(true), ec);
  c->connector.non_blocking(true, ec);
  if (ec) return ec;
  int fd = c->connector.release(ec);
  if (ec) return ec;
  c->sock = NativeSocket(fd);
  poller_.add(fd, key(*c), ec);
  if (ec) return ec;
  auto slot = static_cast<std::size_t>(fd);
  if (by_fd_.size() <= slot) by_fd_.resize(slot + 1);
  by_fd_[slot] = c;
  return ec;
}

std::uint64_t Worker::Impl::key(const Conn& c) {
  return (std::uint64_t{c.serial} << 32) | static_cast<std::uint32_t>(c.sock.fd());
}

// The open connection an event's key names, or null (closed since the event was taken).
ConnPtr Worker::Impl::find(std::uint64_t key) const {
  auto slot = static_cast<std::size_t>(key & 0xffffffffu);
  if (slot >= by_fd_.size() || !by_fd_[slot] || by_fd_[slot]->serial != key >> 32) return nullptr;
  return by_fd_[slot];
}

void Worker::Impl::became_idle(const ConnPtr& c) {
  if (done_) return;
  if (!pending_.empty()) {
    Request r = pending_.front();
    pending_.pop_front();
    send(c, r);
  } else {
    c->state = Conn::State::kIdle;
    idle_.push_back(c);
    maybe_tick();
  }
}

void Worker::Impl::close(const ConnPtr& c) {
  if (c->state == Conn::State::kClosed) return;
  if (c->state == Conn::State::kConnecting) --connecting_;
  c->state = Conn::State::kClosed;
  boost::system::error_code ignored;
  c->connector.close(ignored);
  if (c->sock.is_open()) {
    auto slot = static_cast<std::size_t>(c->sock.fd());
    if (slot < by_fd_.size() && by_fd_[slot] == c) by_fd_[slot].reset();
    c->sock.close();
  }
  std::vector<char>().swap(c->in);
  std::string().swap(c->out);
  conns_.erase(std::remove(conns_.begin(), conns_.end(), c), conns_.end());
  idle_.erase(std::remove(idle_.begin(), idle_.end(), c), idle_.end());
  maybe_tick();
}

void Worker::Impl::close_all() {
  auto all = conns_;
  for (auto& c : all) close(c);
}

}  // namespace wb
