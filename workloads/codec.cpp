#include "workloads/codec.hpp"

#include <charconv>

#include "core/error.hpp"

namespace wb {

const char* to_string(ErrorKind k) {
  switch (k) {
    case ErrorKind::kConnect: return "connect";
    case ErrorKind::kClosed: return "closed";
    case ErrorKind::kIo: return "io";
    case ErrorKind::kProtocol: return "protocol";
    case ErrorKind::kServer: return "server";
    case ErrorKind::kHttp4xx: return "http_4xx";
    case ErrorKind::kHttp5xx: return "http_5xx";
    case ErrorKind::kCount: break;
  }
  return "?";
}

Parsed parse_protocol_error() {
  Parsed p;
  p.done = true;
  p.ok = false;
  p.error = ErrorKind::kProtocol;
  p.close = true;
  return p;
}

Parsed parse_need_more(std::string_view in, std::size_t needed) {
  if (in.size() > kMaxResponseSize || needed > kMaxResponseSize) return parse_protocol_error();
  Parsed p;
  p.length = needed;
  return p;
}

std::size_t line_end(std::string_view in, std::size_t from) {
  std::size_t pos = in.find("\r\n", from);
  return pos == std::string_view::npos ? pos : pos + 2;
}

Target parse_target(const std::string& text, Protocol p) {
  auto bad = [&](const std::string& why) -> InputError {
    return InputError("--target \"" + text + "\": " + why);
  };
  Target t;
  if (p == Protocol::kFile) {
    if (text.empty()) throw bad("expected a directory");
    t.path = text;
    return t;
  }
  std::string rest = text;
  if (p == Protocol::kHttp) {
    const std::string scheme = "http://";
    if (rest.rfind("https://", 0) == 0) throw bad("https is not supported");
    if (rest.rfind(scheme, 0) == 0) rest = rest.substr(scheme.size());
    auto slash = rest.find('/');
    if (slash != std::string::npos) {
      t.path = rest.substr(slash);
      rest = rest.substr(0, slash);
    }
  } else if (rest.find('/') != std::string::npos) {
    throw bad(std::string("expected HOST:PORT for protocol ") + to_string(p));
  }
  std::string port;
  if (!rest.empty() && rest[0] == '[') {
    auto close = rest.find(']');
    if (close == std::string::npos) throw bad("unterminated [IPv6] address");
    t.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') throw bad("expected :PORT after ]");
      port = rest.substr(close + 2);
    }
  } else {
    auto colon = rest.rfind(':');
    if (colon == std::string::npos) {
      t.host = rest;
    } else {
      t.host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
    }
  }
  if (t.host.empty()) throw bad("missing host");
  if (port.empty()) {
    if (p != Protocol::kHttp) throw bad("missing :PORT");
    t.port = 80;
  } else {
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
    if (ec != std::errc() || ptr != port.data() + port.size() || v == 0 || v > 65535)
      throw bad("port must be a number in 1..65535");
    t.port = static_cast<std::uint16_t>(v);
  }
  bool v6 = t.host.find(':') != std::string::npos;
  t.host_header = (v6 ? "[" + t.host + "]" : t.host) + (t.port == 80 ? "" : ":" + std::to_string(t.port));
  return t;
}

std::unique_ptr<Codec> make_codec(const Mix& mix, const Target& target) {
  switch (mix.protocol) {
    case Protocol::kRpc: return make_rpc_codec();
    case Protocol::kHttp: return make_http_codec(mix, target);
    case Protocol::kRedis: return make_redis_codec();
    case Protocol::kMemcached: return make_memcached_codec();
    case Protocol::kFile: break;  // no wire: workloads/file_engine.hpp
  }
  throw Error(std::string("no codec for protocol ") + to_string(mix.protocol));
}

}  // namespace wb
