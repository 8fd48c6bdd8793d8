#pragma once
// Mix: the request mix of a workload — operation kinds with weights, request/value sizes and key
// (file) popularity — read from a TOML file in workloads/mixes/ or built by default_mix().
//
// File format (every key is checked; an unknown key or a wrong type is a wb::InputError naming
// FILE:LINE:KEY):
//
//   name = "web"                 # optional, defaults to the file name
//   protocol = "rpc"             # rpc | http | redis | memcached | file; must match --protocol
//   [keys]                       # optional key/file population (default: 1000 keys, uniform)
//   count = 5000                 # number of distinct keys (files); ≤ 10,000,000 (zipf: ≤ 1,000,000)
//   popularity = "zipf"          # uniform | zipf   (key of rank k has weight 1/k^exponent)
//   exponent = 0.8               # zipf exponent s > 0
//   file_bytes = 1048576         # bytes per file (default 0: unknown, every offset is 0; file: > 0)
//   align = 4096                 # random offsets are multiples of this (default 4096, > 0)
//   [[op]]                       # one or more operations
//   kind = "read"                # rpc: noop|read|write|metadata   http: get|post
//                                # redis, memcached: get|set   file: read|write|metadata
//   weight = 3                   # relative frequency (> 0), default 1
//   size = 4096                  # bytes (rpc read/write size, http POST body, SET value size)
//   size = { dist = "lognormal", mean = 10752, sigma = 1.0, min = 64, max = 1048576 }
//                                # dist = fixed (bytes) | uniform (min, max) | lognormal (mean, sigma,
//                                # optional min/max clamp): `mean` is the mean of the distribution
//   sequential = 0.2             # rpc, file: probability of a sequential (whole-file) access
//   path = "/f/{key}.html"       # http only: {key} is replaced by the key's number
//   paths = ["/a", "/b.html"]    # http only: a URL list; popularity ranks the list (overrides [keys])
//
// Every operation draws a key (rpc: the request's `file`). With file_bytes > 0 its size is clamped
// to file_bytes and, unless it is sequential (whole file from the start), metadata or noop, its
// offset is a random multiple of `align` in [0, file_bytes - size]; otherwise the offset is 0.
// A Mix is immutable after loading; next() takes the caller's random engine, so one Mix can be
// shared by threads that each own an engine.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace wb {

// kFile: blocking I/O on files in a directory (workloads/file_engine.hpp), not a network protocol.
enum class Protocol { kRpc, kHttp, kRedis, kMemcached, kFile };
const char* to_string(Protocol p);
Protocol parse_protocol(const std::string& name);  // wb::InputError on an unknown name

enum class OpKind { kNoop, kRead, kWrite, kMetadata, kGet, kPost, kSet };
const char* to_string(OpKind k);

struct SizeDist {
  enum class Kind { kFixed, kUniform, kLogNormal };
  Kind kind = Kind::kFixed;
  std::uint32_t bytes = 0;  // fixed
  std::uint32_t min = 0;    // uniform bounds, lognormal clamp
  std::uint32_t max = 0;
  double mu = 0, sigma = 0;  // lognormal parameters of the underlying normal
  std::uint32_t sample(std::mt19937_64& rng) const;
  double mean() const;  // analytic mean (ignoring the clamp for lognormal)
};

struct KeySpace {
  std::uint64_t count = 1000;
  bool zipf = false;
  double exponent = 1.0;
  std::uint64_t file_bytes = 0;  // 0: offsets are all 0
  std::uint64_t align = 4096;
  std::vector<double> cdf;                           // zipf only
  std::uint64_t sample(std::mt19937_64& rng) const;  // 0 .. count-1, rank order
};

struct MixOp {
  OpKind kind = OpKind::kRead;
  double weight = 1;
  SizeDist size;
  double sequential = 0;
  std::string path;                // http template
  std::vector<std::string> paths;  // http URL list
  KeySpace list_keys;              // popularity over `paths`
};

// One request drawn from the mix.
struct Operation {
  const MixOp* op = nullptr;
  OpKind kind = OpKind::kNoop;
  std::uint32_t size = 0;
  bool sequential = false;
  std::uint64_t key = 0;
  std::uint64_t offset = 0;  // byte offset in the key's file
};

class Mix {
 public:
  std::string name;
  Protocol protocol = Protocol::kRpc;
  KeySpace keys;
  std::vector<MixOp> ops;

  Operation next(std::mt19937_64& rng) const;
  // Path of an http operation (template expanded or list entry); `fallback` when it has neither.
  std::string http_path(const Operation& o, const std::string& fallback) const;

  void finish();  // validates and prepares sampling tables; called by the loaders

 private:
  std::uint64_t draw_offset(Operation& o, std::mt19937_64& rng) const;  // clamps o.size too

  std::vector<double> op_cdf_;
};

// Throws wb::InputError (FILE:LINE:KEY) on a bad file or a mix for another protocol.
Mix load_mix(const std::string& path, Protocol expected);
Mix parse_mix(const std::string& toml_text, const std::string& source_name, Protocol expected);
// rpc: 4 KiB random reads; http: GET of the target URL's path; redis/memcached: 90% GET / 10% SET
// of 100-byte values over 1000 uniform keys; file: 4 KiB random reads over 64 files of 1 MiB.
Mix default_mix(Protocol p);

}  // namespace wb
