#pragma once
// Mix: the request mix of a workload — operation kinds with weights, request/value sizes and key
// (file) popularity — read from a TOML file in workloads/mixes/ or built by default_mix().
//
// File format (every key is checked; an unknown key or a wrong type is a wb::InputError naming
// FILE:LINE:KEY):
//
//   name = "web"                 # optional, defaults to the file name
//   protocol = "rpc"             # rpc | http | redis | memcached; must match --protocol
//   [keys]                       # optional key/file population (default: 1000 keys, uniform)
//   count = 5000                 # number of distinct keys (files); ≤ 10,000,000 (zipf: ≤ 1,000,000)
//   popularity = "zipf"          # uniform | zipf   (key of rank k has weight 1/k^exponent)
//   exponent = 0.8               # zipf exponent s > 0
//   [[op]]                       # one or more operations
//   kind = "read"                # rpc: noop|read|write|metadata   http: get|post
//                                # redis, memcached: get|set
//   weight = 3                   # relative frequency (> 0), default 1
//   size = 4096                  # bytes (rpc read/write size, http POST body, SET value size)
//   size = { dist = "lognormal", mean = 10752, sigma = 1.0, min = 64, max = 1048576 }
//                                # dist = fixed (bytes) | uniform (min, max) | lognormal (mean, sigma,
//                                # optional min/max clamp): `mean` is the mean of the distribution
//   sequential = 0.2             # rpc only: probability the sequential-access flag is set
//   path = "/f/{key}.html"       # http only: {key} is replaced by the key's number
//   paths = ["/a", "/b.html"]    # http only: a URL list; popularity ranks the list (overrides [keys])
//
// The rpc wire format carries no key, so [keys] only matters for http, redis and memcached.
// A Mix is immutable after loading; next() takes the caller's random engine, so one Mix can be
// shared by threads that each own an engine.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace wb {

enum class Protocol { kRpc, kHttp, kRedis, kMemcached };
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
  std::vector<double> op_cdf_;
};

// Throws wb::InputError (FILE:LINE:KEY) on a bad file or a mix for another protocol.
Mix load_mix(const std::string& path, Protocol expected);
Mix parse_mix(const std::string& toml_text, const std::string& source_name, Protocol expected);
// rpc: 4 KiB random reads; http: GET of the target URL's path; redis/memcached: 90% GET / 10% SET
// of 100-byte values over 1000 uniform keys.
Mix default_mix(Protocol p);

}  // namespace wb
