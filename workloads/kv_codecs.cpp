// --protocol redis (RESP2 GET/SET) and --protocol memcached (text protocol get/set).
// Keys are "key:<n>" with n drawn from the mix's key space; SET values are `size` bytes of 'v'.
#include <charconv>

#include "workloads/codec.hpp"

namespace wb {
namespace {

bool parse_int(std::string_view s, long long& v) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

Parsed done(std::size_t length, bool ok) {
  Parsed p;
  p.done = true;
  p.length = length;
  p.ok = ok;
  p.error = ErrorKind::kServer;
  return p;
}

class RedisCodec final : public Codec {
 public:
  void encode(const Operation& op, std::uint64_t, std::string& out) const override {
    std::string key = "key:" + std::to_string(op.key);
    auto bulk = [&](std::string_view s) {
      out += '$';
      out += std::to_string(s.size());
      out += "\r\n";
      out += s;
      out += "\r\n";
    };
    if (op.kind == OpKind::kSet) {
      out += "*3\r\n";
      bulk("SET");
      bulk(key);
      out += '$';
      out += std::to_string(op.size);
      out += "\r\n";
      out.append(op.size, 'v');
      out += "\r\n";
    } else {
      out += "*2\r\n";
      bulk("GET");
      bulk(key);
    }
  }

  // Replies to GET and SET are one of: +simple, -error, :integer, $len bulk (or $-1 nil).
  Parsed parse(std::string_view in, std::uint64_t) const override {
    std::size_t le = line_end(in, 0);
    if (le == std::string_view::npos) return in.size() > kMaxHeaderSize ? parse_protocol_error() : Parsed{};
    if (le > kMaxHeaderSize) return parse_protocol_error();  // however the bytes arrived
    std::string_view line = in.substr(1, le - 3);
    switch (in[0]) {
      case '+':
      case ':': return done(le, true);
      case '-': return done(le, false);
      case '$': {
        long long n = 0;
        if (!parse_int(line, n) || n < -1 || n > static_cast<long long>(rpc::kMaxFrame))
          return parse_protocol_error();
        if (n == -1) return done(le, true);  // a miss is a successful GET
        std::size_t total = le + static_cast<std::size_t>(n) + 2;
        if (in.size() < total) return parse_need_more(in, total);
        if (in.substr(total - 2, 2) != "\r\n") return parse_protocol_error();
        return done(total, true);
      }
      default: return parse_protocol_error();
    }
  }
};

class MemcachedCodec final : public Codec {
 public:
  void encode(const Operation& op, std::uint64_t, std::string& out) const override {
    std::string key = "key:" + std::to_string(op.key);
    if (op.kind == OpKind::kSet) {
      out += "set ";
      out += key;
      out += " 0 0 ";
      out += std::to_string(op.size);
      out += "\r\n";
      out.append(op.size, 'v');
      out += "\r\n";
    } else {
      out += "get ";
      out += key;
      out += "\r\n";
    }
  }

  // get: "VALUE <key> <flags> <bytes> [<cas>]\r\n<data>\r\nEND\r\n" or "END\r\n";
  // set: "STORED\r\n" (or NOT_STORED/EXISTS/NOT_FOUND); errors: ERROR, CLIENT_ERROR, SERVER_ERROR.
  Parsed parse(std::string_view in, std::uint64_t) const override {
    std::size_t le = line_end(in, 0);
    if (le == std::string_view::npos) return in.size() > kMaxHeaderSize ? parse_protocol_error() : Parsed{};
    if (le > kMaxHeaderSize) return parse_protocol_error();  // however the bytes arrived
    std::string_view line = in.substr(0, le - 2);
    if (line == "END" || line == "STORED" || line == "NOT_STORED" || line == "EXISTS" || line == "NOT_FOUND")
      return done(le, true);
    if (line == "ERROR" || line.rfind("CLIENT_ERROR", 0) == 0 || line.rfind("SERVER_ERROR", 0) == 0)
      return done(le, false);
    if (line.rfind("VALUE ", 0) != 0) return parse_protocol_error();
    // the byte count is the 4th field
    std::string_view rest = line.substr(6);
    for (int skip = 0; skip < 2; ++skip) {
      auto sp = rest.find(' ');
      if (sp == std::string_view::npos) return parse_protocol_error();
      rest = rest.substr(sp + 1);
    }
    rest = rest.substr(0, rest.find(' '));
    long long n = 0;
    if (!parse_int(rest, n) || n < 0 || n > static_cast<long long>(rpc::kMaxFrame))
      return parse_protocol_error();
    std::size_t total = le + static_cast<std::size_t>(n) + 2 + 5;  // data \r\n END\r\n
    if (in.size() < total) return parse_need_more(in, total);
    if (in.substr(total - 7, 7) != "\r\nEND\r\n") return parse_protocol_error();
    return done(total, true);
  }
};

}  // namespace

std::unique_ptr<Codec> make_redis_codec() { return std::make_unique<RedisCodec>(); }
std::unique_ptr<Codec> make_memcached_codec() { return std::make_unique<MemcachedCodec>(); }

}  // namespace wb
