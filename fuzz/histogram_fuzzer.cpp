// The latency histogram's JSON form (LatencyHistogram::from_json, "wb-loglin-v1": base64 of
// LEB128 varints) on arbitrary JSON. Rejections are InputErrors. What is accepted must be a
// histogram some sequence of record() calls could have produced — counts that add up to `count`
// without overflow, min and max in the lowest and highest non-empty buckets, a mean between them —
// and
// decode -> encode -> decode must give it back identically.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "workloads/histogram.hpp"

namespace {

// The non-empty buckets of an encoding, read independently of the decoder under test.
struct Bucket {
  std::uint64_t index;
  std::uint64_t count;
};

std::vector<Bucket> buckets_of(const std::string& base64) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string raw;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : base64) {
    if (c == '=') break;
    acc = (acc << 6) | static_cast<std::uint32_t>(kAlphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      raw.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  std::vector<Bucket> out;
  std::size_t pos = 0;
  auto varint = [&] {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      WB_FUZZ_CHECK(pos < raw.size() && shift < 64);
      auto b = static_cast<std::uint8_t>(raw[pos++]);
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return v;
    }
  };
  std::uint64_t next = 0;
  while (pos < raw.size()) {
    std::uint64_t gap = varint();
    std::uint64_t n = varint();
    out.push_back({next + gap, n});
    next = next + gap + 1;
  }
  return out;
}

void check_consistent(const wb::LatencyHistogram& h) {
  const std::vector<Bucket> buckets = buckets_of(h.encode_buckets());
  std::uint64_t total = 0;
  for (const auto& b : buckets) {
    WB_FUZZ_CHECK(b.count > 0 && b.index < wb::LatencyHistogram::bucket_count());
    WB_FUZZ_CHECK(b.count <= std::numeric_limits<std::uint64_t>::max() - total);
    total += b.count;
  }
  WB_FUZZ_CHECK(total == h.count());
  if (h.count() == 0) {
    WB_FUZZ_CHECK(h.percentile_ns(50) == 0 && h.mean_ns() == 0);
    return;
  }
  WB_FUZZ_CHECK(wb::LatencyHistogram::bucket_index(h.min_ns()) == buckets.front().index);
  WB_FUZZ_CHECK(wb::LatencyHistogram::bucket_index(h.max_ns()) == buckets.back().index);
  // sum and sum_sq are doubles: allow for their rounding.
  const double lo = static_cast<double>(h.min_ns()), hi = static_cast<double>(h.max_ns());
  WB_FUZZ_CHECK(h.mean_ns() >= lo * (1 - 1e-9) && h.mean_ns() <= hi * (1 + 1e-9));
  std::uint64_t last = 0;
  for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    std::uint64_t v = h.percentile_ns(p);
    WB_FUZZ_CHECK(v >= h.min_ns() && v <= h.max_ns() && v >= last);
    last = v;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return wb::fuzz::run([&] {
    const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return;
    wb::LatencyHistogram h;
    try {
      h = wb::LatencyHistogram::from_json(j);
    } catch (const wb::InputError&) {
      return;
    }
    check_consistent(h);
    const nlohmann::json encoded = h.to_json();
    const wb::LatencyHistogram back = wb::LatencyHistogram::from_json(encoded);
    WB_FUZZ_CHECK(back == h);
    WB_FUZZ_CHECK(back.to_json() == encoded);
    wb::LatencyHistogram merged;
    merged.merge(h);
    WB_FUZZ_CHECK(merged == h);
  });
}
