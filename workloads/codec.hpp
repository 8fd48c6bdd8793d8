#pragma once
// Codec: the wire side of one protocol: encodes an Operation drawn from the Mix into request bytes and
// finds where the response on a connection ends. wbload keeps one request in flight per connection, so
// a codec only looks at the bytes received since the request was sent.
// Threads: immutable, shared by worker threads. Failure: parse() never throws; malformed input is
// ErrorKind::kProtocol.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/rpc_protocol.hpp"
#include "workloads/mix.hpp"

namespace wb {

// The longest status line, header block or reply line a codec waits for.
constexpr std::size_t kMaxHeaderSize = std::size_t{64} * 1024;
// The most bytes one response may take: a body of at most rpc::kMaxFrame after a head of at most
// kMaxHeaderSize. The worker grows its buffer to what a partial response announces, so a server
// announcing or sending more gets a protocol error instead of the memory.
constexpr std::size_t kMaxResponseSize = kMaxHeaderSize + rpc::kMaxFrame + 16;

// Where requests go. `path` and `host_header` only matter for http; file mode has only `path`
// (the directory).
struct Target {
  std::string host;
  std::uint16_t port = 0;
  std::string path = "/";
  std::string host_header;
};
// rpc/redis/memcached: HOST:PORT or [V6]:PORT; http: http://HOST[:PORT][/PATH] (HOST:PORT is
// also accepted, path "/"); file: a directory, checked when the run starts. Throws wb::InputError
// naming the target.
Target parse_target(const std::string& text, Protocol p);

// How a request failed; the JSON result reports non-zero kinds by these names.
enum class ErrorKind : std::uint8_t {
  kConnect,   // "connect": the connection for it could not be opened
  kClosed,    // "closed": the server closed or reset the connection before answering
  kIo,        // "io": another socket error
  kProtocol,  // "protocol": a response wbload cannot parse (or an id mismatch)
  kServer,    // "server": the server answered with an error (rpc status, RESP -ERR, memcached ERROR)
  kHttp4xx,   // "http_4xx"
  kHttp5xx,   // "http_5xx"
  kCount
};
const char* to_string(ErrorKind k);

struct Parsed {
  bool done = false;       // a complete response is in the buffer
  std::size_t length = 0;  // done: bytes of the response; not done: total bytes needed if known, else 0
  bool ok = true;          // done: the response reports success
  ErrorKind error = ErrorKind::kProtocol;
  bool close = false;  // the connection must be closed after this response (or on error)
};

class Codec {
 public:
  virtual ~Codec() = default;
  // Appends the request for `op` to `out`; `id` is unique per connection.
  virtual void encode(const Operation& op, std::uint64_t id, std::string& out) const = 0;
  virtual Parsed parse(std::string_view in, std::uint64_t id) const = 0;
};

std::unique_ptr<Codec> make_rpc_codec();
std::unique_ptr<Codec> make_http_codec(const Mix& mix, const Target& target);
std::unique_ptr<Codec> make_redis_codec();
std::unique_ptr<Codec> make_memcached_codec();
std::unique_ptr<Codec> make_codec(const Mix& mix, const Target& target);

// Helpers shared by the text protocols.
Parsed parse_protocol_error();
// Not done yet: `needed` total bytes if known (else 0) — or a protocol error once `in` or
// `needed` exceeds kMaxResponseSize.
Parsed parse_need_more(std::string_view in, std::size_t needed);
// Position just past the first "\r\n" at or after `from`, or npos.
std::size_t line_end(std::string_view in, std::size_t from);

}  // namespace wb
