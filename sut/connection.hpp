#pragma once
// Connection: one client's TCP connection to refserver, speaking core/rpc_protocol.hpp.
//
// It reads frames one after another and hands each decoded request to a FrameHandler without
// waiting for earlier ones to finish, so a client may pipeline; responses go out in the order
// they complete (the protocol lets a client match them by id). A frame shorter than a request
// body or longer than rpc::kMaxFrame is a framing error: the connection is closed. Read errors
// (including the client closing) end reading; replies still in flight are dropped quietly.
//
// Threads: the socket's executor is a strand; every read/write handler runs on it. reply() is
// safe from any thread (it posts to the strand). Lifetime: shared_ptr, kept alive by pending
// handlers and by jobs that still owe a reply.
#include <array>
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
// any write data). Called on the connection's strand; must not block.
class FrameHandler {
 public:
  virtual ~FrameHandler() = default;
  virtual void on_request(const std::shared_ptr<Connection>& conn, const rpc::Request& request,
                          std::uint32_t body_size) = 0;
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

  void read_length();
  void read_body(std::uint32_t length);
  void write_next();

  boost::asio::ip::tcp::socket socket_;
  FrameHandler& handler_;
  std::array<std::uint8_t, rpc::kLengthSize> length_{};  // strand only
  std::vector<std::uint8_t> body_;                       // strand only
  std::deque<Outgoing> out_;                             // strand only; front is being written
  std::vector<boost::asio::const_buffer> gather_;        // strand only; buffers of out_.front()
};

}  // namespace wb::sut
