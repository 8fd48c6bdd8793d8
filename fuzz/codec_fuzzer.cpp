// wbload's response parsers (workloads/codec.hpp: rpc, HTTP/1.1, RESP, memcached text) on the
// bytes a server sends, and --target parsing. The first input byte picks the parser, the rest
// is its input. A codec never throws; it must delimit a response the same way however the bytes
// arrive (the worker parses whatever prefix it has received), never claim more bytes than it
// has, and never ask to buffer more than a response can hold.
#include <algorithm>
#include <memory>

#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "workloads/codec.hpp"

namespace {

struct Codecs {
  wb::Mix http_mix = wb::default_mix(wb::Protocol::kHttp);
  std::unique_ptr<wb::Codec> all[4];
  Codecs() {
    all[0] = wb::make_rpc_codec();
    all[1] = wb::make_http_codec(http_mix, wb::parse_target("http://127.0.0.1:1/", wb::Protocol::kHttp));
    all[2] = wb::make_redis_codec();
    all[3] = wb::make_memcached_codec();
  }
};

bool same(const wb::Parsed& a, const wb::Parsed& b) {
  return a.done == b.done && a.length == b.length && a.ok == b.ok && a.error == b.error && a.close == b.close;
}

bool protocol_error(const wb::Parsed& p) { return p.done && !p.ok && p.error == wb::ErrorKind::kProtocol; }

// The input in a buffer of exactly its size, so ASan sees any read past its end.
wb::Parsed parse_exact(const wb::Codec& codec, std::string_view in, std::uint64_t id) {
  std::unique_ptr<char[]> exact(new char[std::max<std::size_t>(in.size(), 1)]);
  std::copy(in.begin(), in.end(), exact.get());
  return codec.parse(std::string_view(exact.get(), in.size()), id);
}

void check_codec(const wb::Codec& codec, std::string_view in) {
  constexpr std::uint64_t kId = 1;
  const wb::Parsed full = parse_exact(codec, in, kId);
  if (full.done) {
    WB_FUZZ_CHECK(full.length <= in.size());
    if (protocol_error(full)) return;
    WB_FUZZ_CHECK(full.length > 0);
    // The response ends where it ends, whatever follows it.
    WB_FUZZ_CHECK(same(parse_exact(codec, in.substr(0, full.length), kId), full));
  } else {
    WB_FUZZ_CHECK(full.length == 0 || full.length > in.size());
    WB_FUZZ_CHECK(full.length <= wb::kMaxResponseSize);
  }
  // The worker's way: parse what has arrived, wait for the announced length, parse again. No
  // earlier prefix may complete a response, or announce a length beyond the one that completes.
  const std::size_t end = full.done ? full.length : in.size();
  for (std::size_t have = 1; have < end;) {
    const wb::Parsed p = parse_exact(codec, in.substr(0, have), kId);
    if (protocol_error(p)) return;  // the worker closes the connection here
    WB_FUZZ_CHECK(!p.done);
    WB_FUZZ_CHECK(p.length == 0 || p.length > have);
    WB_FUZZ_CHECK(p.length <= wb::kMaxResponseSize);
    WB_FUZZ_CHECK(!full.done || p.length <= full.length);
    have = std::max(have + 1 + have / 4, p.length);
  }
}

void check_target(const std::string& text, wb::Protocol p) {
  try {
    wb::Target t = wb::parse_target(text, p);
    WB_FUZZ_CHECK(!t.host.empty() && t.port != 0 && !t.path.empty() && t.path.front() == '/');
  } catch (const wb::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Codecs codecs;
  return wb::fuzz::run([&] {
    if (size == 0) return;
    const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
    const unsigned pick = data[0] % 8;
    if (pick < 4) {
      check_codec(*codecs.all[pick], in);
    } else {
      check_target(std::string(in), static_cast<wb::Protocol>(pick - 4));
    }
  });
}
