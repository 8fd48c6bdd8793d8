#include "refserver_fixture.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace wb::test {

std::string refserver_path() { return WB_REFSERVER_PATH; }

TestServer::TestServer(const std::vector<std::string>& args) {
  std::vector<std::string> argv{refserver_path(), "--port", "0", "--bind", "127.0.0.1"};
  argv.insert(argv.end(), args.begin(), args.end());
  child_ = std::make_unique<ChildProcess>(argv);
  const auto line = child_->read_stdout_line(std::chrono::seconds(20));
  if (!line || line->rfind("ready ", 0) != 0) {
    child_->send_signal(9);
    child_->wait_exit(std::chrono::seconds(5));
    throw std::runtime_error("refserver did not print 'ready <port>'; stderr: " + child_->drain_stderr());
  }
  port_ = std::stoi(line->substr(6));
}

RpcClient::RpcClient(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    throw std::runtime_error("connect to refserver failed");
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{10, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

RpcClient::~RpcClient() noexcept {
  if (fd_ >= 0) ::close(fd_);
}

void RpcClient::send_raw(const std::vector<std::uint8_t>& bytes) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("send to refserver failed");
    off += static_cast<std::size_t>(n);
  }
}

void RpcClient::send(rpc::Op op, std::uint32_t size, std::uint64_t id, std::uint8_t flags) {
  rpc::Request r;
  r.op = op;
  r.size = size;
  r.id = id;
  r.flags = flags;
  const auto head = rpc::encode_request(r);
  std::vector<std::uint8_t> bytes(head.begin(), head.end());
  if (op == rpc::Op::kWrite) bytes.resize(bytes.size() + size, 0xab);
  send_raw(bytes);
}

void RpcClient::send_batch(const std::vector<rpc::Request>& requests) {
  std::vector<std::uint8_t> bytes;
  for (const rpc::Request& r : requests) {
    const auto head = rpc::encode_request(r);
    bytes.insert(bytes.end(), head.begin(), head.end());
    if (r.op == rpc::Op::kWrite) bytes.resize(bytes.size() + r.size, 0xab);
  }
  send_raw(bytes);
}

void RpcClient::read_exact(std::uint8_t* p, std::size_t n) {
  std::size_t off = 0;
  while (off < n) {
    const ssize_t r = ::recv(fd_, p + off, n - off, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) throw std::runtime_error("refserver closed the connection");
    if (r < 0) throw std::runtime_error("receive from refserver failed or timed out");
    off += static_cast<std::size_t>(r);
  }
}

Response RpcClient::receive() {
  std::uint8_t len[4];
  read_exact(len, 4);
  const std::uint32_t n = rpc::get_u32(len);
  if (n < rpc::kResponseHeaderSize) throw std::runtime_error("short response frame");
  std::vector<std::uint8_t> body(n);
  read_exact(body.data(), n);
  Response r;
  r.id = rpc::get_u64(body.data());
  r.status = static_cast<rpc::Status>(body[8]);
  r.data.assign(reinterpret_cast<const char*>(body.data()) + rpc::kResponseHeaderSize,
                n - rpc::kResponseHeaderSize);
  return r;
}

bool RpcClient::closed_by_peer() {
  timeval tv{5, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c;
  for (;;) {
    const ssize_t r = ::recv(fd_, &c, 1, 0);
    if (r < 0 && errno == EINTR) continue;
    return r == 0 || (r < 0 && errno == ECONNRESET);
  }
}

Response RpcClient::call(rpc::Op op, std::uint32_t size, std::uint64_t id, std::uint8_t flags) {
  send(op, size, id, flags);
  return receive();
}

nlohmann::json RpcClient::stats(bool reset) {
  const Response r = call(rpc::Op::kStats, 0, 0x5747, reset ? 2 : 0);
  if (r.status != rpc::Status::kOk || r.id != 0x5747) throw std::runtime_error("stats request failed");
  return nlohmann::json::parse(r.data);
}

double stage(const nlohmann::json& stats, const char* op, const char* stage_name, const char* field) {
  return stats.at("ops").at(op).at("stages").at(stage_name).at(field).get<double>();
}

}  // namespace wb::test
