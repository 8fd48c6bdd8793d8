#include "sut/connection.hpp"

#include <algorithm>

namespace wb::sut {
namespace asio = boost::asio;

namespace {
// Read data is zeros; every read response points into this one block as often as needed.
constexpr std::size_t kZeroBlock = std::size_t{256} * 1024;
const std::array<std::uint8_t, kZeroBlock> kZeros{};
}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, FrameHandler& handler)
    : socket_(std::move(socket)), handler_(handler) {}

void Connection::start() {
  boost::system::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  read_length();
}

void Connection::close() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->socket_.close(ignored);
  });
}

void Connection::read_length() {
  asio::async_read(socket_, asio::buffer(length_),
                   [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                     if (ec) return;
                     const std::uint32_t length = rpc::get_u32(self->length_.data());
                     if (length < rpc::kRequestBodySize || length > rpc::kMaxFrame) {
                       boost::system::error_code ignored;
                       self->socket_.close(ignored);
                       return;
                     }
                     self->read_body(length);
                   });
}

void Connection::read_body(std::uint32_t length) {
  body_.resize(length);
  asio::async_read(socket_, asio::buffer(body_),
                   [self = shared_from_this(), length](boost::system::error_code ec, std::size_t) {
                     if (ec) return;
                     const rpc::Request request = rpc::decode_request(self->body_.data());
                     self->handler_.on_request(self, request, length);
                     self->read_length();
                   });
}

void Connection::reply(std::uint64_t id, rpc::Status status, std::uint32_t zeros, std::string text) {
  Outgoing out;
  const auto data = static_cast<std::uint32_t>(zeros + text.size());
  out.header = rpc::encode_response_header(id, status, data);
  out.zeros = zeros;
  out.text = std::move(text);
  asio::post(socket_.get_executor(), [self = shared_from_this(), out = std::move(out)]() mutable {
    self->out_.push_back(std::move(out));
    if (self->out_.size() == 1) self->write_next();
  });
}

void Connection::write_next() {
  const Outgoing& out = out_.front();
  gather_.clear();
  gather_.push_back(asio::buffer(out.header));
  for (std::uint32_t left = out.zeros; left > 0;) {
    const std::size_t n = std::min<std::size_t>(left, kZeroBlock);
    gather_.push_back(asio::buffer(kZeros.data(), n));
    left -= static_cast<std::uint32_t>(n);
  }
  if (!out.text.empty()) gather_.push_back(asio::buffer(out.text));
  asio::async_write(socket_, gather_, [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
    if (ec) {
      self->out_.clear();
      return;
    }
    self->out_.pop_front();
    if (!self->out_.empty()) self->write_next();
  });
}

}  // namespace wb::sut
