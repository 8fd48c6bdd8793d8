#include "sut/connection.hpp"

#include <algorithm>

namespace wb::sut {
namespace asio = boost::asio;

namespace {
// Read data is zeros; every read response points into this one block as often as needed.
constexpr std::size_t kZeroBlock = std::size_t{256} * 1024;
const std::array<std::uint8_t, kZeroBlock> kZeros{};
constexpr std::size_t kReadChunk = std::size_t{64} * 1024;
}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, FrameHandler& handler)
    : socket_(std::move(socket)), handler_(handler) {}

void Connection::start() {
  boost::system::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  read_more();
}

void Connection::close() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->socket_.close(ignored);
  });
}

void Connection::read_more() {
  // Make room: drop decoded bytes, then grow to hold at least the frame being read (or 64 KiB).
  if (in_begin_ > 0) {
    std::copy(in_.begin() + static_cast<std::ptrdiff_t>(in_begin_),
              in_.begin() + static_cast<std::ptrdiff_t>(in_end_), in_.begin());
    in_end_ -= in_begin_;
    in_begin_ = 0;
  }
  std::size_t want = kReadChunk;
  if (in_end_ >= rpc::kLengthSize) want = std::max(want, rpc::kLengthSize + rpc::get_u32(in_.data()));
  // Undecoded bytes are a partial frame, shorter than `want`, so both resizes keep them.
  if (in_.size() < want) {
    in_.resize(want);
  } else if (in_.size() > 4 * want) {
    in_.resize(want);  // give back the memory of a past large write
    in_.shrink_to_fit();
  }
  socket_.async_read_some(asio::buffer(in_.data() + in_end_, in_.size() - in_end_),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                            if (ec) return;
                            self->in_end_ += n;
                            if (self->decode_frames(std::chrono::steady_clock::now())) self->read_more();
                          });
}

bool Connection::decode_frames(std::chrono::steady_clock::time_point arrival) {
  while (in_end_ - in_begin_ >= rpc::kLengthSize) {
    const std::uint8_t* p = in_.data() + in_begin_;
    const std::uint32_t length = rpc::get_u32(p);
    if (length < rpc::kRequestBodySize || length > rpc::kMaxFrame) {
      boost::system::error_code ignored;
      socket_.close(ignored);
      return false;
    }
    if (in_end_ - in_begin_ < rpc::kLengthSize + length) break;
    const rpc::Request request = rpc::decode_request(p + rpc::kLengthSize);
    in_begin_ += rpc::kLengthSize + length;
    handler_.on_request(shared_from_this(), request, length, arrival);
  }
  return true;
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
