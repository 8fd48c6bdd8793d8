#pragma once
// The framed request/response protocol between wbload (--protocol rpc) and refserver.
// Header-only: both stand-alone programs include it and nothing else from core.
//
// Every message is a frame: a 4-byte big-endian length L of what follows, then L bytes.
//
// Request body (kRequestBodySize = 32 bytes, then `payload` bytes for writes):
//   u8  op        Op below
//   u8  flags     bit 0: sequential access (cheaper disk service than random)
//   u16 reserved  0
//   u32 size      bytes read or written by the operation
//   u64 id        chosen by the client, echoed in the response
//   u64 file      which file the operation touches (the mix's key); a server's cache indexes by it
//   u64 offset    byte offset in that file of the first byte read or written
//   [size bytes of data for kWrite]
//
// Response body (kResponseHeaderSize = 12 bytes, then data):
//   u64 id        the request's id
//   u8  status    Status below
//   u8  reserved[3]
//   [for kRead: `size` bytes of data; for kStats: a JSON object as UTF-8 text;
//    for an error: a UTF-8 message]
//
// All integers are big-endian. A server may answer requests of one connection out of order; a
// client matches responses by id.
#include <array>
#include <cstddef>
#include <cstdint>

namespace wb::rpc {

enum class Op : std::uint8_t {
  kNoop = 0,      // no service at all (protocol overhead only)
  kRead = 1,      // CPU + one disk operation, returns `size` bytes
  kWrite = 2,     // CPU + one disk operation, carries `size` bytes
  kMetadata = 3,  // CPU only (getattr/lookup-like)
  kStats = 4,     // per-stage timings as JSON, served without queueing
};

enum class Status : std::uint8_t { kOk = 0, kError = 1, kBadRequest = 2 };

constexpr std::uint8_t kFlagSequential = 1;
constexpr std::size_t kLengthSize = 4;
constexpr std::size_t kRequestBodySize = 32;
constexpr std::size_t kResponseHeaderSize = 12;
constexpr std::uint32_t kMaxFrame = 64u << 20;  // larger frames are a protocol error

struct Request {
  Op op = Op::kNoop;
  std::uint8_t flags = 0;
  std::uint32_t size = 0;
  std::uint64_t id = 0;
  std::uint64_t file = 0;
  std::uint64_t offset = 0;
};

inline void put_u32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}
inline std::uint32_t get_u32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
inline void put_u64(std::uint8_t* p, std::uint64_t v) {
  put_u32(p, static_cast<std::uint32_t>(v >> 32));
  put_u32(p + 4, static_cast<std::uint32_t>(v));
}
inline std::uint64_t get_u64(const std::uint8_t* p) {
  return (std::uint64_t{get_u32(p)} << 32) | get_u32(p + 4);
}

// Length prefix + request body (without write data). The length counts the write data too.
inline std::array<std::uint8_t, kLengthSize + kRequestBodySize> encode_request(const Request& r) {
  std::array<std::uint8_t, kLengthSize + kRequestBodySize> b{};
  std::uint32_t len = static_cast<std::uint32_t>(kRequestBodySize) + (r.op == Op::kWrite ? r.size : 0);
  put_u32(b.data(), len);
  b[4] = static_cast<std::uint8_t>(r.op);
  b[5] = r.flags;
  put_u32(b.data() + 8, r.size);
  put_u64(b.data() + 12, r.id);
  put_u64(b.data() + 20, r.file);
  put_u64(b.data() + 28, r.offset);
  return b;
}

// Decodes a request body of at least kRequestBodySize bytes.
inline Request decode_request(const std::uint8_t* body) {
  Request r;
  r.op = static_cast<Op>(body[0]);
  r.flags = body[1];
  r.size = get_u32(body + 4);
  r.id = get_u64(body + 8);
  r.file = get_u64(body + 16);
  r.offset = get_u64(body + 24);
  return r;
}

// Length prefix + response header; `data_size` bytes of data follow.
inline std::array<std::uint8_t, kLengthSize + kResponseHeaderSize> encode_response_header(
    std::uint64_t id, Status status, std::uint32_t data_size) {
  std::array<std::uint8_t, kLengthSize + kResponseHeaderSize> b{};
  put_u32(b.data(), static_cast<std::uint32_t>(kResponseHeaderSize) + data_size);
  put_u64(b.data() + 4, id);
  b[12] = static_cast<std::uint8_t>(status);
  return b;
}

}  // namespace wb::rpc
