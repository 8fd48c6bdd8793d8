// Mix files (workloads/mixes/*.toml) on arbitrary text, for the protocol the mix declares.
// Rejections are InputErrors; an accepted mix draws operations of its protocol with sizes, keys
// and paths inside what it declared, and every codec encodes them.
#include <optional>

#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "workloads/codec.hpp"
#include "workloads/mix.hpp"

namespace {

constexpr wb::Protocol kProtocols[] = {wb::Protocol::kRpc, wb::Protocol::kHttp, wb::Protocol::kRedis,
                                       wb::Protocol::kMemcached, wb::Protocol::kFile};

// Tries the protocols in turn, stopping at the first verdict that is not "this mix is for
// another protocol" (the mix names its protocol; wbload's --protocol must agree).
std::optional<wb::Mix> parse_any(const std::string& text) {
  for (wb::Protocol p : kProtocols) {
    try {
      return wb::parse_mix(text, "fuzz.toml", p);
    } catch (const wb::InputError& e) {
      if (std::string_view(e.what()).find(", but --protocol is ") == std::string_view::npos)
        return std::nullopt;
    }
  }
  return std::nullopt;
}

void check_draws(const wb::Mix& mix) {
  std::mt19937_64 rng(7);
  const bool file = mix.protocol == wb::Protocol::kFile;  // no wire: nothing to encode
  auto target = wb::parse_target(
      mix.protocol == wb::Protocol::kHttp ? "http://127.0.0.1:8080/x" : (file ? "/tmp" : "127.0.0.1:1"),
      mix.protocol);
  auto codec = file ? nullptr : wb::make_codec(mix, target);
  for (int i = 0; i < 16; ++i) {
    wb::Operation o = mix.next(rng);
    WB_FUZZ_CHECK(o.op >= mix.ops.data() && o.op < mix.ops.data() + mix.ops.size());
    const wb::SizeDist& d = o.op->size;
    if (d.kind == wb::SizeDist::Kind::kFixed) WB_FUZZ_CHECK(o.size == d.bytes);
    if (d.kind != wb::SizeDist::Kind::kFixed) WB_FUZZ_CHECK(o.size >= d.min && o.size <= d.max);
    WB_FUZZ_CHECK(o.key < (o.op->paths.empty() ? mix.keys.count : o.op->paths.size()));
    if (mix.protocol == wb::Protocol::kHttp) WB_FUZZ_CHECK(mix.http_path(o, "/x").front() == '/');
    // Offsets: aligned and inside the file when files have a size, else 0.
    if (mix.keys.file_bytes == 0) WB_FUZZ_CHECK(o.offset == 0);
    if (mix.keys.file_bytes > 0) {
      WB_FUZZ_CHECK(o.offset % mix.keys.align == 0);
      WB_FUZZ_CHECK(o.offset + o.size <= mix.keys.file_bytes);
    }
    if (codec && o.size <= 4096) {  // encoding copies `size` bytes of payload: keep the run fast
      std::string out;
      codec->encode(o, static_cast<std::uint64_t>(i), out);
      WB_FUZZ_CHECK(!out.empty());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return wb::fuzz::run([&] {
    std::optional<wb::Mix> mix = parse_any(wb::fuzz::text_of(data, size));
    if (!mix) return;
    WB_FUZZ_CHECK(!mix->ops.empty() && mix->keys.count >= 1);
    for (const auto& op : mix->ops) WB_FUZZ_CHECK(op.weight > 0 && op.sequential >= 0 && op.sequential <= 1);
    check_draws(*mix);
  });
}
