// Codecs on canned bytes: where a response ends, success vs error, partial input. The same codecs
// are exercised against the real servers in servers_test.cpp.
#include <catch2/catch.hpp>

#include "core/rpc_protocol.hpp"
#include "workloads/codec.hpp"

namespace {

wb::Operation op(wb::OpKind k, std::uint32_t size = 0, std::uint64_t key = 0) {
  wb::Operation o;
  o.kind = k;
  o.size = size;
  o.key = key;
  return o;
}

}  // namespace

TEST_CASE("rpc requests follow core/rpc_protocol.hpp and responses match by id", "[codec]") {
  auto c = wb::make_rpc_codec();
  std::string out;
  c->encode(op(wb::OpKind::kWrite, 100), 77, out);
  REQUIRE(out.size() == wb::rpc::kLengthSize + wb::rpc::kRequestBodySize + 100);
  auto r = wb::rpc::decode_request(reinterpret_cast<const std::uint8_t*>(out.data()) + 4);
  REQUIRE(r.op == wb::rpc::Op::kWrite);
  REQUIRE(r.size == 100);
  REQUIRE(r.id == 77);
  auto head = wb::rpc::encode_response_header(77, wb::rpc::Status::kOk, 5);
  std::string resp(reinterpret_cast<const char*>(head.data()), head.size());
  resp += "abcde";
  auto p = c->parse(std::string_view(resp).substr(0, 10), 77);
  REQUIRE(!p.done);
  p = c->parse(std::string_view(resp).substr(0, 17), 77);
  REQUIRE(!p.done);
  REQUIRE(p.length == resp.size());
  p = c->parse(resp, 77);
  REQUIRE(p.done);
  REQUIRE(p.ok);
  REQUIRE(p.length == resp.size());
  REQUIRE(!c->parse(resp, 78).ok);  // id mismatch is a protocol error
  auto err = wb::rpc::encode_response_header(77, wb::rpc::Status::kError, 0);
  p = c->parse(std::string(reinterpret_cast<const char*>(err.data()), err.size()), 77);
  REQUIRE(p.done);
  REQUIRE(!p.ok);
  REQUIRE(p.error == wb::ErrorKind::kServer);
}

TEST_CASE("rpc requests carry the drawn file and offset", "[codec]") {
  auto mix = wb::parse_mix(
      "protocol = \"rpc\"\n[keys]\ncount = 50\nfile_bytes = 1048576\n[[op]]\nkind = \"read\"\nsize = "
      "4096\n[[op]]\nkind = \"write\"\nsize = 8192\n",
      "f.toml", wb::Protocol::kRpc);
  auto c = wb::make_rpc_codec();
  std::mt19937_64 rng(3);
  std::uint64_t nonzero = 0;
  for (std::uint64_t id = 1; id <= 200; ++id) {
    wb::Operation o = mix.next(rng);
    std::string out;
    c->encode(o, id, out);
    REQUIRE(out.size() >= wb::rpc::kLengthSize + wb::rpc::kRequestBodySize);
    auto r =
        wb::rpc::decode_request(reinterpret_cast<const std::uint8_t*>(out.data()) + wb::rpc::kLengthSize);
    REQUIRE(r.id == id);
    REQUIRE(r.file == o.key);
    REQUIRE(r.offset == o.offset);
    REQUIRE(r.size == o.size);
    nonzero += r.offset != 0;
  }
  REQUIRE(nonzero > 150);  // 1 MiB files: almost every random offset is past 0
}

TEST_CASE("http responses end by Content-Length or chunked coding", "[codec]") {
  wb::Mix mix = wb::default_mix(wb::Protocol::kHttp);
  auto t = wb::parse_target("http://127.0.0.1:8080/i.html", wb::Protocol::kHttp);
  auto c = wb::make_http_codec(mix, t);
  std::string out;
  wb::Operation o = op(wb::OpKind::kGet);
  o.op = &mix.ops[0];
  c->encode(o, 1, out);
  REQUIRE(out == "GET /i.html HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wbload\r\n\r\n");
  std::string r = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nconnection: keep-alive\r\n\r\nhello";
  REQUIRE(!c->parse(r.substr(0, 20), 1).done);
  REQUIRE(!c->parse(r.substr(0, r.size() - 1), 1).done);
  auto p = c->parse(r, 1);
  REQUIRE(p.done);
  REQUIRE(p.ok);
  REQUIRE(!p.close);
  REQUIRE(p.length == r.size());
  std::string ch =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
  REQUIRE(!c->parse(ch.substr(0, ch.size() - 2), 1).done);
  p = c->parse(ch, 1);
  REQUIRE(p.done);
  REQUIRE(p.close);
  REQUIRE(p.length == ch.size());
  p = c->parse("HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n", 1);
  REQUIRE(p.done);
  REQUIRE(p.error == wb::ErrorKind::kHttp5xx);
  REQUIRE(c->parse("SSH-2.0-OpenSSH\r\n\r\n", 1).error == wb::ErrorKind::kProtocol);
}

TEST_CASE("redis and memcached replies", "[codec]") {
  auto r = wb::make_redis_codec();
  std::string out;
  r->encode(op(wb::OpKind::kSet, 3, 42), 1, out);
  REQUIRE(out == "*3\r\n$3\r\nSET\r\n$6\r\nkey:42\r\n$3\r\nvvv\r\n");
  REQUIRE(r->parse("+OK\r\n", 1).ok);
  REQUIRE(r->parse("$-1\r\n", 1).ok);
  REQUIRE(!r->parse("$5\r\nhel", 1).done);
  REQUIRE(r->parse("$5\r\nhello\r\n", 1).length == 11);
  auto e = r->parse("-ERR wrong\r\n", 1);
  REQUIRE(e.done);
  REQUIRE(!e.ok);
  REQUIRE(e.error == wb::ErrorKind::kServer);

  auto m = wb::make_memcached_codec();
  out.clear();
  m->encode(op(wb::OpKind::kGet, 0, 7), 1, out);
  REQUIRE(out == "get key:7\r\n");
  REQUIRE(m->parse("END\r\n", 1).ok);
  REQUIRE(m->parse("STORED\r\n", 1).ok);
  std::string v = "VALUE key:7 0 5\r\nhello\r\nEND\r\n";
  REQUIRE(!m->parse(v.substr(0, v.size() - 3), 1).done);
  REQUIRE(m->parse(v, 1).length == v.size());
  REQUIRE(!m->parse("SERVER_ERROR out of memory\r\n", 1).ok);
  REQUIRE(m->parse("VALUE key:7 0 5\r\nhelloXXEND\r\n", 1).error == wb::ErrorKind::kProtocol);
}

// A chunk size whose addition wrapped the read position back to the chunk's own line made the
// parser loop forever on one server response.
TEST_CASE("http chunk size near 2^64 is a protocol error, not an endless loop", "[codec]") {
  wb::Mix mix = wb::default_mix(wb::Protocol::kHttp);
  auto c = wb::make_http_codec(mix, wb::parse_target("http://127.0.0.1:8080/", wb::Protocol::kHttp));
  // 16 hex digits + CRLF + the CRLF after the data: 0xffffffffffffffec + 20 wraps to 0.
  std::string r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffec\r\nabc";
  auto p = c->parse(r, 1);
  REQUIRE(p.done);
  REQUIRE(p.error == wb::ErrorKind::kProtocol);
}

// The worker grows its buffer to the length a partial response announces: a server announcing
// exabytes made it allocate them (or wrapped the length into a short "complete" response).
TEST_CASE("a response announcing more than kMaxResponseSize is a protocol error", "[codec]") {
  wb::Mix mix = wb::default_mix(wb::Protocol::kHttp);
  auto http = wb::make_http_codec(mix, wb::parse_target("http://127.0.0.1:8080/", wb::Protocol::kHttp));
  auto redis = wb::make_redis_codec();
  auto memcached = wb::make_memcached_codec();
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: ";
  const std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string over = std::to_string(wb::rpc::kMaxFrame + 1);
  const std::string limit = std::to_string(wb::rpc::kMaxFrame);
  std::vector<std::pair<const wb::Codec*, std::string>> refused = {
      {http.get(), head + "18446744073709551615\r\n\r\n"},  // wrapped to a length inside the head
      {http.get(), head + over + "\r\n\r\n"},
      {http.get(), chunked + "fffffffff\r\n"},
      {redis.get(), "$9223372036854775000\r\n"},
      {redis.get(), "$" + over + "\r\n"},
      {memcached.get(), "VALUE key:1 0 9223372036854775000\r\n"},
      {memcached.get(), "VALUE key:1 0 " + over + "\r\n"},
  };
  for (const auto& [codec, bytes] : refused) {
    INFO(bytes);
    auto p = codec->parse(bytes, 1);
    REQUIRE(p.done);
    REQUIRE(p.error == wb::ErrorKind::kProtocol);
  }
  std::vector<std::pair<const wb::Codec*, std::string>> waiting = {
      {http.get(), head + limit + "\r\n\r\n"},
      {redis.get(), "$" + limit + "\r\n"},
      {memcached.get(), "VALUE key:1 0 " + limit + "\r\n"},
  };
  for (const auto& [codec, bytes] : waiting) {
    INFO(bytes);
    auto p = codec->parse(bytes, 1);
    REQUIRE(!p.done);
    REQUIRE(p.length > bytes.size());
    REQUIRE(p.length <= wb::kMaxResponseSize);
  }
}

// The header limit applied only while the blank line had not arrived: the same response was
// refused or accepted depending on how the bytes were split across reads.
TEST_CASE("a header block over 64 KiB is refused however it arrives", "[codec]") {
  wb::Mix mix = wb::default_mix(wb::Protocol::kHttp);
  auto http = wb::make_http_codec(mix, wb::parse_target("http://127.0.0.1:8080/", wb::Protocol::kHttp));
  std::string r =
      "HTTP/1.1 200 OK\r\nX-Pad: " + std::string(70 * 1024, 'x') + "\r\nContent-Length: 0\r\n\r\n";
  REQUIRE(http->parse(r.substr(0, 66 * 1024), 1).error == wb::ErrorKind::kProtocol);
  auto p = http->parse(r, 1);
  REQUIRE(p.done);
  REQUIRE(p.error == wb::ErrorKind::kProtocol);
  auto redis = wb::make_redis_codec();
  std::string line = "+" + std::string(70 * 1024, 'x') + "\r\n";
  REQUIRE(redis->parse(line.substr(0, 66 * 1024), 1).error == wb::ErrorKind::kProtocol);
  REQUIRE(redis->parse(line, 1).error == wb::ErrorKind::kProtocol);
}
