#include "workloads/mix.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "core/error.hpp"

namespace wb {
namespace {

constexpr std::uint64_t kMaxKeys = 10'000'000;
constexpr std::uint64_t kMaxZipfKeys = 1'000'000;
constexpr double kMaxSize = 64.0 * 1024 * 1024 - 64;             // below rpc::kMaxFrame
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 40;  // DB_TP's files reach TB [003 Table 3]
constexpr std::uint64_t kMaxAlign = std::uint64_t{1} << 30;

// Reads one TOML table with FILE:LINE:KEY errors and a check that every key is known.
class Section {
 public:
  Section(const toml::table& t, std::string file, std::string prefix)
      : t_(t), file_(std::move(file)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const toml::node* n, const std::string& key, const std::string& what) const {
    auto line = n ? n->source().begin.line : t_.source().begin.line;
    throw InputError(file_ + ":" + std::to_string(line) + ":" + prefix_ + key + ": " + what);
  }
  const toml::node* get(const std::string& key) {
    seen_.insert(key);
    return t_.get(key);
  }
  std::string str(const std::string& key, const std::string& def) {
    const toml::node* n = get(key);
    if (!n) return def;
    if (!n->is_string()) fail(n, key, "expected a string");
    return n->as_string()->get();
  }
  double num(const std::string& key, double def, double lo, double hi) {
    const toml::node* n = get(key);
    if (!n) return def;
    double v = 0;
    if (n->is_integer()) {
      v = static_cast<double>(n->as_integer()->get());
    } else if (n->is_floating_point()) {
      v = n->as_floating_point()->get();
    } else {
      fail(n, key, "expected a number");
    }
    if (!(v >= lo && v <= hi)) {
      std::ostringstream o;
      o << "must be in [" << lo << ", " << hi << "], got " << v;
      fail(n, key, o.str());
    }
    return v;
  }
  // An integer key (a float is a wrong type: byte counts are whole).
  std::uint64_t whole(const std::string& key, std::uint64_t def, std::uint64_t lo, std::uint64_t hi) {
    const toml::node* n = get(key);
    if (!n) return def;
    if (!n->is_integer()) fail(n, key, "expected a whole number");
    std::int64_t v = n->as_integer()->get();
    if (v < 0 || static_cast<std::uint64_t>(v) < lo || static_cast<std::uint64_t>(v) > hi)
      fail(n, key,
           "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + std::to_string(v));
    return static_cast<std::uint64_t>(v);
  }
  void check_unknown() const {
    for (const auto& [k, v] : t_)
      if (!seen_.count(std::string(k.str()))) fail(&v, std::string(k.str()), "unknown key");
  }
  const std::string& file() const { return file_; }
  const std::string& prefix() const { return prefix_; }

 private:
  const toml::table& t_;
  std::string file_;
  std::string prefix_;
  std::set<std::string> seen_;
};

std::vector<OpKind> kinds_of(Protocol p) {
  switch (p) {
    case Protocol::kRpc: return {OpKind::kNoop, OpKind::kRead, OpKind::kWrite, OpKind::kMetadata};
    case Protocol::kHttp: return {OpKind::kGet, OpKind::kPost};
    case Protocol::kRedis:
    case Protocol::kMemcached: return {OpKind::kGet, OpKind::kSet};
    case Protocol::kFile: return {OpKind::kRead, OpKind::kWrite, OpKind::kMetadata};
  }
  return {};
}

SizeDist parse_size(Section& s, const toml::node* n) {
  SizeDist d;
  if (!n) return d;
  if (n->is_integer()) {
    d.bytes = static_cast<std::uint32_t>(s.num("size", 0, 0, kMaxSize));
    return d;
  }
  if (!n->is_table()) s.fail(n, "size", "expected bytes or a table {dist = ...}");
  Section t(*n->as_table(), s.file(), s.prefix() + "size.");
  std::string dist = t.str("dist", "fixed");
  if (dist == "fixed") {
    d.kind = SizeDist::Kind::kFixed;
    d.bytes = static_cast<std::uint32_t>(t.num("bytes", 0, 0, kMaxSize));
  } else if (dist == "uniform") {
    d.kind = SizeDist::Kind::kUniform;
    d.min = static_cast<std::uint32_t>(t.num("min", 0, 0, kMaxSize));
    d.max = static_cast<std::uint32_t>(t.num("max", d.min, d.min, kMaxSize));
  } else if (dist == "lognormal") {
    d.kind = SizeDist::Kind::kLogNormal;
    double mean = t.num("mean", 4096, 1, kMaxSize);
    d.sigma = t.num("sigma", 1.0, 0, 5);
    d.mu = std::log(mean) - d.sigma * d.sigma / 2;  // E[X] = exp(mu + sigma^2 / 2)
    d.min = static_cast<std::uint32_t>(t.num("min", 0, 0, kMaxSize));
    d.max = static_cast<std::uint32_t>(t.num("max", kMaxSize, d.min, kMaxSize));
  } else {
    t.fail(n, "dist", "expected fixed, uniform or lognormal, got \"" + dist + "\"");
  }
  t.check_unknown();
  return d;
}

KeySpace parse_keys(Section& s) {
  KeySpace k;
  k.count = static_cast<std::uint64_t>(s.num("count", 1000, 1, kMaxKeys));
  std::string pop = s.str("popularity", "uniform");
  if (pop == "zipf") {
    k.zipf = true;
    k.exponent = s.num("exponent", 1.0, 0.01, 10);
    if (k.count > kMaxZipfKeys) s.fail(s.get("count"), "count", "zipf supports at most 1000000 keys");
  } else if (pop != "uniform") {
    s.fail(s.get("popularity"), "popularity", "expected uniform or zipf, got \"" + pop + "\"");
  }
  k.file_bytes = s.whole("file_bytes", 0, 0, kMaxFileBytes);
  k.align = s.whole("align", 4096, 1, kMaxAlign);
  s.check_unknown();
  return k;
}

void prepare(KeySpace& k) {
  k.cdf.clear();
  if (!k.zipf) return;
  k.cdf.resize(k.count);
  double total = 0;
  for (std::uint64_t r = 0; r < k.count; ++r) {
    total += 1.0 / std::pow(static_cast<double>(r + 1), k.exponent);
    k.cdf[r] = total;
  }
  for (auto& c : k.cdf) c /= total;
}

}  // namespace

const char* to_string(Protocol p) {
  switch (p) {
    case Protocol::kRpc: return "rpc";
    case Protocol::kHttp: return "http";
    case Protocol::kRedis: return "redis";
    case Protocol::kMemcached: return "memcached";
    case Protocol::kFile: return "file";
  }
  return "?";
}

Protocol parse_protocol(const std::string& n) {
  for (Protocol p :
       {Protocol::kRpc, Protocol::kHttp, Protocol::kRedis, Protocol::kMemcached, Protocol::kFile})
    if (n == to_string(p)) return p;
  throw InputError("unknown protocol \"" + n + "\" (expected rpc, http, redis, memcached or file)");
}

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::kNoop: return "noop";
    case OpKind::kRead: return "read";
    case OpKind::kWrite: return "write";
    case OpKind::kMetadata: return "metadata";
    case OpKind::kGet: return "get";
    case OpKind::kPost: return "post";
    case OpKind::kSet: return "set";
  }
  return "?";
}

std::uint32_t SizeDist::sample(std::mt19937_64& rng) const {
  switch (kind) {
    case Kind::kFixed: return bytes;
    case Kind::kUniform: return std::uniform_int_distribution<std::uint32_t>(min, max)(rng);
    case Kind::kLogNormal: {
      double v = std::lognormal_distribution<double>(mu, sigma)(rng);
      return static_cast<std::uint32_t>(std::clamp(std::round(v), double(min), double(max)));
    }
  }
  return 0;
}

double SizeDist::mean() const {
  switch (kind) {
    case Kind::kFixed: return bytes;
    case Kind::kUniform: return (double(min) + double(max)) / 2;
    case Kind::kLogNormal: return std::exp(mu + sigma * sigma / 2);
  }
  return 0;
}

std::uint64_t KeySpace::sample(std::mt19937_64& rng) const {
  if (!zipf) return std::uniform_int_distribution<std::uint64_t>(0, count - 1)(rng);
  double u = std::uniform_real_distribution<double>(0, 1)(rng);
  auto it = std::lower_bound(cdf.begin(), cdf.end(), u);
  return it == cdf.end() ? count - 1 : static_cast<std::uint64_t>(it - cdf.begin());
}

void Mix::finish() {
  if (ops.empty()) throw InputError(name + ": a mix needs at least one [[op]]");
  prepare(keys);
  op_cdf_.clear();
  double total = 0;
  for (auto& o : ops) {
    total += o.weight;
    op_cdf_.push_back(total);
    if (!o.paths.empty()) {
      o.list_keys.count = o.paths.size();
      prepare(o.list_keys);
    }
  }
  for (auto& c : op_cdf_) c /= total;
}

Operation Mix::next(std::mt19937_64& rng) const {
  std::size_t i = 0;
  if (ops.size() > 1) {
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    i = static_cast<std::size_t>(std::lower_bound(op_cdf_.begin(), op_cdf_.end(), u) - op_cdf_.begin());
    if (i >= ops.size()) i = ops.size() - 1;
  }
  const MixOp& op = ops[i];
  Operation o;
  o.op = &op;
  o.kind = op.kind;
  o.size = op.size.sample(rng);
  if (op.sequential > 0) o.sequential = std::uniform_real_distribution<double>(0, 1)(rng) < op.sequential;
  o.key = op.paths.empty() ? keys.sample(rng) : op.list_keys.sample(rng);
  o.offset = draw_offset(o, rng);
  return o;
}

std::uint64_t Mix::draw_offset(Operation& o, std::mt19937_64& rng) const {
  if (keys.file_bytes == 0) return 0;
  o.size = static_cast<std::uint32_t>(std::min<std::uint64_t>(o.size, keys.file_bytes));
  // Metadata and no-ops touch no bytes; sequential ops take the file from its start.
  if (o.sequential || o.kind == OpKind::kNoop || o.kind == OpKind::kMetadata) return 0;
  std::uint64_t slots = (keys.file_bytes - o.size) / keys.align;
  return keys.align * std::uniform_int_distribution<std::uint64_t>(0, slots)(rng);
}

std::string Mix::http_path(const Operation& o, const std::string& fallback) const {
  const MixOp& op = *o.op;
  if (!op.paths.empty()) return op.paths[o.key];
  if (op.path.empty()) return fallback;
  std::string p = op.path;
  auto pos = p.find("{key}");
  if (pos != std::string::npos) p.replace(pos, 5, std::to_string(o.key));
  return p;
}

Mix parse_mix(const std::string& text, const std::string& file, Protocol expected) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file + ":" + std::to_string(e.source().begin.line) + ": " +
                     std::string(e.description()));
  }
  Section top(root, file, "");
  Mix m;
  m.name = top.str("name", file);
  top.str("description", "");
  std::string proto = top.str("protocol", "");
  if (proto.empty()) top.fail(nullptr, "protocol", "missing (rpc, http, redis, memcached or file)");
  try {
    m.protocol = parse_protocol(proto);
  } catch (const InputError& e) {
    top.fail(top.get("protocol"), "protocol", e.what());
  }
  if (m.protocol != expected)
    top.fail(top.get("protocol"), "protocol",
             std::string("this mix is for ") + proto + ", but --protocol is " + to_string(expected));
  if (const toml::node* k = top.get("keys")) {
    if (!k->is_table()) top.fail(k, "keys", "expected a table");
    Section ks(*k->as_table(), file, "keys.");
    m.keys = parse_keys(ks);
  }
  if (m.protocol == Protocol::kFile && m.keys.file_bytes == 0)
    top.fail(top.get("keys"), "keys.file_bytes", "file mode needs the size of its files (> 0)");
  const toml::node* ops = top.get("op");
  if (!ops || !ops->is_array_of_tables()) top.fail(ops, "op", "expected one or more [[op]] tables");
  const auto allowed = kinds_of(m.protocol);
  std::size_t idx = 0;
  for (const auto& n : *ops->as_array()) {
    Section s(*n.as_table(), file, "op[" + std::to_string(idx++) + "].");
    MixOp o;
    std::string kind = s.str("kind", "");
    bool ok = false;
    for (OpKind k : allowed)
      if (kind == to_string(k)) o.kind = k, ok = true;
    if (!ok) {
      std::string list;
      for (OpKind k : allowed) list += std::string(list.empty() ? "" : ", ") + to_string(k);
      std::string what = "\"" + kind;
      what.append("\" is not an operation of ").append(proto).append(" (").append(list).append(")");
      s.fail(s.get("kind"), "kind", what);
    }
    o.weight = s.num("weight", 1, 1e-9, 1e12);
    o.size = parse_size(s, s.get("size"));
    if (m.protocol == Protocol::kRpc || m.protocol == Protocol::kFile)
      o.sequential = s.num("sequential", 0, 0, 1);
    if (m.protocol == Protocol::kHttp) {
      o.path = s.str("path", "");
      if (!o.path.empty() && o.path[0] != '/') s.fail(s.get("path"), "path", "must start with /");
      if (const toml::node* p = s.get("paths")) {
        if (!p->is_array() || p->as_array()->empty())
          s.fail(p, "paths", "expected a non-empty array of strings");
        for (const auto& e : *p->as_array()) {
          if (!e.is_string() || e.as_string()->get().empty() || e.as_string()->get()[0] != '/')
            s.fail(&e, "paths", "every entry must be a string starting with /");
          o.paths.push_back(e.as_string()->get());
        }
        o.list_keys = m.keys;
        o.list_keys.count = o.paths.size();
      }
    }
    s.check_unknown();
    m.ops.push_back(std::move(o));
  }
  top.check_unknown();
  m.finish();
  return m;
}

Mix load_mix(const std::string& path, Protocol expected) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open mix file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_mix(ss.str(), path, expected);
}

Mix default_mix(Protocol p) {
  Mix m;
  m.name = std::string("default-") + to_string(p);
  m.protocol = p;
  switch (p) {
    case Protocol::kRpc:
    case Protocol::kFile: {
      MixOp o;
      o.kind = OpKind::kRead;
      o.size.bytes = 4096;
      m.ops.push_back(o);
      if (p == Protocol::kFile) {
        m.keys.count = 64;
        m.keys.file_bytes = std::uint64_t{1} << 20;
      }
      break;
    }
    case Protocol::kHttp: {
      MixOp o;
      o.kind = OpKind::kGet;
      m.ops.push_back(o);
      break;
    }
    case Protocol::kRedis:
    case Protocol::kMemcached: {
      MixOp get;
      get.kind = OpKind::kGet;
      get.weight = 9;
      MixOp set;
      set.kind = OpKind::kSet;
      set.size.bytes = 100;
      m.ops = {get, set};
      break;
    }
  }
  m.finish();
  return m;
}

}  // namespace wb
