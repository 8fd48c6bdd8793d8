// --protocol http: HTTP/1.1 keep-alive, one request in flight per connection (no pipelining).
// Responses are delimited by Content-Length or chunked transfer coding (RFC 9112 §6); a response
// delimited only by closing the connection is not supported (reported as a protocol error).
#include <charconv>
#include <vector>

#include "workloads/codec.hpp"

namespace wb {
namespace {

bool iequals_prefix(std::string_view line, std::string_view name) {
  if (line.size() < name.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char a = line[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (a != name[i]) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

bool contains_token(std::string_view value, std::string_view token) {
  // case-insensitive search of a lower-case token
  for (std::size_t i = 0; i + token.size() <= value.size(); ++i)
    if (iequals_prefix(value.substr(i), token)) return true;
  return false;
}

class HttpCodec final : public Codec {
 public:
  HttpCodec(const Mix& mix, const Target& target) : mix_(mix), target_(target) {
    // A GET of a fixed path is the same bytes every time: build it once.
    for (const auto& o : mix.ops) {
      std::string fixed;
      if (o.kind == OpKind::kGet && o.paths.empty() && o.path.find("{key}") == std::string::npos) {
        Operation op;
        op.op = &o;
        op.kind = o.kind;
        build(op, fixed);
      }
      fixed_.push_back(std::move(fixed));
    }
  }

  void encode(const Operation& op, std::uint64_t, std::string& out) const override {
    if (op.op) {
      auto i = static_cast<std::size_t>(op.op - mix_.ops.data());
      if (i < fixed_.size() && !fixed_[i].empty()) {
        out += fixed_[i];
        return;
      }
    }
    build(op, out);
  }

  void build(const Operation& op, std::string& out) const {
    bool post = op.kind == OpKind::kPost;
    out += post ? "POST " : "GET ";
    out += mix_.http_path(op, target_.path);
    out += " HTTP/1.1\r\nHost: ";
    out += target_.host_header;
    out += "\r\nUser-Agent: wbload\r\n";
    if (post) {
      out += "Content-Type: application/octet-stream\r\nContent-Length: ";
      out += std::to_string(op.size);
      out += "\r\n\r\n";
      out.append(op.size, 'x');
    } else {
      out += "\r\n";
    }
  }

  Parsed parse(std::string_view in, std::uint64_t) const override {
    Parsed p;
    std::size_t head_end = in.find("\r\n\r\n");
    if (head_end == std::string_view::npos) return in.size() > kMaxHeaderSize ? parse_protocol_error() : p;
    head_end += 4;
    if (head_end > kMaxHeaderSize) return parse_protocol_error();  // however the bytes arrived
    std::string_view head = in.substr(0, head_end);
    // Status line: HTTP/1.x SSS reason
    if (head.size() < 12 || head.substr(0, 7) != "HTTP/1.") return parse_protocol_error();
    int status = 0;
    auto [ptr, ec] = std::from_chars(head.data() + 9, head.data() + 12, status);
    if (ec != std::errc() || ptr != head.data() + 12) return parse_protocol_error();
    bool http10 = head[7] == '0';
    bool chunked = false, close = http10, keep_alive = false, has_length = false;
    std::size_t content_length = 0;
    std::size_t pos = line_end(head, 0);
    while (pos != std::string_view::npos && pos + 2 < head.size()) {
      std::size_t next = line_end(head, pos);
      std::string_view line = head.substr(pos, next - pos);
      if (iequals_prefix(line, "content-length:")) {
        std::string_view v = trim(line.substr(15));
        auto [p2, e2] = std::from_chars(v.data(), v.data() + v.size(), content_length);
        if (e2 != std::errc() || p2 != v.data() + v.size()) return parse_protocol_error();
        if (content_length > rpc::kMaxFrame) return parse_protocol_error();
        has_length = true;
      } else if (iequals_prefix(line, "transfer-encoding:")) {
        chunked = contains_token(line.substr(18), "chunked");
      } else if (iequals_prefix(line, "connection:")) {
        if (contains_token(line.substr(11), "close")) close = true;
        if (contains_token(line.substr(11), "keep-alive")) keep_alive = true;
      }
      pos = next;
    }
    if (http10 && keep_alive) close = false;
    std::size_t total = 0;
    if (status / 100 == 1 || status == 204 || status == 304) {
      total = head_end;
    } else if (chunked) {
      std::size_t at = head_end;
      for (;;) {
        std::size_t le = line_end(in, at);
        if (le == std::string_view::npos) return parse_need_more(in, 0);
        std::size_t size = 0;
        std::string_view hex = in.substr(at, le - 2 - at);
        hex = hex.substr(0, hex.find(';'));
        hex = trim(hex);
        auto [p3, e3] = std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
        if (e3 != std::errc() || hex.empty() || size > rpc::kMaxFrame) return parse_protocol_error();
        if (size == 0) {
          // trailers end with an empty line
          std::size_t t = le;
          for (;;) {
            std::size_t tl = line_end(in, t);
            if (tl == std::string_view::npos) return parse_need_more(in, 0);
            if (tl == t + 2) {
              total = tl;
              break;
            }
            t = tl;
          }
          break;
        }
        at = le + size + 2;
        if (at > in.size()) return parse_need_more(in, at);  // at least this much is needed
      }
    } else if (has_length) {
      total = head_end + content_length;
    } else {
      return parse_protocol_error();
    }
    if (in.size() < total) return parse_need_more(in, chunked ? 0 : total);
    p.done = true;
    p.length = total;
    p.close = close;
    if (status >= 500) {
      p.ok = false;
      p.error = ErrorKind::kHttp5xx;
    } else if (status >= 400) {
      p.ok = false;
      p.error = ErrorKind::kHttp4xx;
    }
    return p;
  }

 private:
  const Mix& mix_;
  Target target_;
  std::vector<std::string> fixed_;  // per op of the mix: prebuilt request, or empty
};

}  // namespace

std::unique_ptr<Codec> make_http_codec(const Mix& mix, const Target& target) {
  return std::make_unique<HttpCodec>(mix, target);
}

}  // namespace wb
