#pragma once
// Connection: one client's TCP connection to refserver, speaking core/rpc_protocol.hpp. It hands every
// complete frame of a read to a FrameHandler at once (a client may pipeline), all stamped with the
// read's completion time, and sends responses in the order they complete. A frame shorter than a
// request body or longer than rpc::kMaxFrame closes the connection; read errors end reading and drop
// replies in flight. Threads: every handler runs on the socket's strand; reply() is safe from any
// thread. Lifetime: shared_ptr, kept by pending handlers and by jobs that owe a reply.
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/asio.hpp"
#include "core/rpc_protocol.hpp"

namespace wb::sut {

class Connection;

// What a server does with one decoded frame. `body_size` is the frame length (request body plus
// any write data); `arrival` is when its last byte was read. Called on the connection's strand;
// must not block.
class FrameHandler {
 public:
  virtual ~FrameHandler() = default;
  virtual void on_request(const std::shared_ptr<Connection>& conn, const rpc::Request& request,
                          std::uint32_t body_size, std::chrono::steady_clock::time_point arrival) = 0;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `socket` must use a strand as its executor; `handler` must outlive every connection.
  Connection(boost::asio::ip::tcp::socket socket, FrameHandler& handler);

  void start();
  // Queues a response: `zeros` bytes of zero data (a read's data) or `text` (stats JSON, error
  // message). Safe from any thread.
  void reply(std::uint64_t id, rpc::Status status, std::uint32_t zeros, std::string text = {});
  // Closes the socket (on the strand); pending operations end with an error.
  void close();

 private:
  struct Outgoing {
    std::array<std::uint8_t, rpc::kLengthSize + rpc::kResponseHeaderSize> header{};
    std::uint32_t zeros = 0;
    std::string text;
  };

  void read_more();
  // Decodes the complete frames in in_; false after a framing error (the socket is closed).
  bool decode_frames(std::chrono::steady_clock::time_point arrival);
  void write_next();

  boost::asio::ip::tcp::socket socket_;
  FrameHandler& handler_;
  std::vector<std::uint8_t> in_;  // strand only; bytes [in_begin_, in_end_) are not decoded yet
  std::size_t in_begin_ = 0;      // strand only
  std::size_t in_end_ = 0;        // strand only
  std::deque<Outgoing> out_;      // strand only; front is being written
  std::vector<boost::asio::const_buffer> gather_;  // strand only; buffers of out_.front()
};

}  // namespace wb::sut
