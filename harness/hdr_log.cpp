#include "harness/hdr_log.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace wb {

namespace {

// Cookies of HdrHistogram's V2 encoding: the compressed wrapper, and the histogram inside it. Bits
// 0xf0 carry a word size (writers set 0x10), which the base leaves out.
constexpr std::uint32_t kCompressedCookie = 0x1c849304;
constexpr std::uint32_t kEncodingCookie = 0x1c849303;
constexpr std::uint64_t kCookieBase = ~std::uint64_t{0xf0};
constexpr std::size_t kHeaderBytes = 40;
// A histogram's payload inflates to at most this: far more buckets than any real one holds.
constexpr std::size_t kMaxInflated = 16u << 20;

struct Reader {
  const std::string& bytes;
  std::size_t at = 0;
  std::size_t line;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("hdr-log line {}: {}", line, what));
  }
  std::uint64_t big_endian(int n) {
    if (at + static_cast<std::size_t>(n) > bytes.size()) fail("the histogram ends inside its header");
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<std::uint8_t>(bytes[at++]);
    return v;
  }
  // A ZigZag LEB128 varint of at most 9 bytes (HdrHistogram's encoding of 64-bit counts).
  std::int64_t zigzag() {
    std::uint64_t v = 0;
    for (int i = 0; i < 9; ++i) {
      if (at >= bytes.size()) fail("a count ends inside its encoding");
      const auto b = static_cast<std::uint8_t>(bytes[at++]);
      v |= (i == 8 ? std::uint64_t{b} : std::uint64_t{b & 0x7fu}) << (7 * i);
      if (i == 8 || (b & 0x80u) == 0) break;
    }
    return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
};

std::string inflate_all(const std::string& in, std::size_t line) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw Error("zlib: inflateInit failed");
  std::string out;
  std::vector<char> chunk(1 << 16);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - z.avail_out);
    if (out.size() > kMaxInflated) rc = Z_MEM_ERROR;
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) rc = Z_DATA_ERROR;  // input ended early
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    throw InputError(fmt::format("hdr-log line {}: the histogram does not inflate", line));
  return out;
}

// Adds one encoded histogram to `into`.
void add_histogram(const std::string& encoded, double unit_ns, std::size_t line, LatencyHistogram& into) {
  const std::string wrapped = base64_decode(encoded, fmt::format("hdr-log line {}", line));
  Reader outer{wrapped, 0, line};
  if ((outer.big_endian(4) & kCookieBase) != kCompressedCookie)
    outer.fail("not a compressed V2 HdrHistogram (cookie)");
  const std::uint64_t length = outer.big_endian(4);
  if (length != wrapped.size() - 8) outer.fail("the compressed length does not match");
  const std::string raw = inflate_all(wrapped.substr(8), line);
  Reader r{raw, 0, line};
  if ((r.big_endian(4) & kCookieBase) != kEncodingCookie) r.fail("not a V2 HdrHistogram encoding (cookie)");
  const std::uint64_t payload = r.big_endian(4);
  const auto normalizing_offset = static_cast<std::int32_t>(r.big_endian(4));
  const std::uint64_t digits = r.big_endian(4);
  const std::uint64_t lowest = r.big_endian(8);
  (void)r.big_endian(8);  // highest trackable value: not needed to read the counts
  const std::uint64_t ratio_bits = r.big_endian(8);
  if (payload != raw.size() - kHeaderBytes) r.fail("the payload length does not match");
  if (normalizing_offset != 0) r.fail("a normalizing index offset (a shifted histogram) is not supported");
  if (digits > 5) r.fail(fmt::format("{} significant digits: HdrHistogram allows 0 to 5", digits));
  if (lowest < 1) r.fail("lowest trackable value below 1");
  double ratio = std::bit_cast<double>(ratio_bits);
  if (!(ratio > 0) || !std::isfinite(ratio)) ratio = 1;  // integer histograms write 1.0
  // The layout of HdrHistogram's counts array.
  const int unit_magnitude = static_cast<int>(std::bit_width(lowest)) - 1;
  const auto single_unit = static_cast<std::uint64_t>(2 * std::pow(10.0, static_cast<double>(digits)));
  const int sub_bucket_count_magnitude = static_cast<int>(std::bit_width(single_unit - 1));
  const int half_magnitude = std::max(sub_bucket_count_magnitude, 1) - 1;
  const std::uint64_t half_count = std::uint64_t{1} << half_magnitude;
  std::uint64_t index = 0;
  while (r.at < raw.size()) {
    const std::int64_t v = r.zigzag();
    if (v < 0) {  // a run of empty buckets
      index += static_cast<std::uint64_t>(-(v + 1)) + 1;
      continue;
    }
    if (v > 0) {
      std::int64_t bucket = static_cast<std::int64_t>(index >> half_magnitude) - 1;
      std::uint64_t sub = (index & (half_count - 1)) + half_count;
      if (bucket < 0) {
        sub -= half_count;
        bucket = 0;
      }
      if (bucket + unit_magnitude > 62) r.fail("a value beyond 64 bits");
      const int shift = static_cast<int>(bucket) + unit_magnitude;
      const double low = std::ldexp(static_cast<double>(sub), shift);
      const double width = std::ldexp(1.0, shift);
      const double ns = (low + width / 2) * ratio * unit_ns;
      const double capped = std::min(ns, static_cast<double>(LatencyHistogram::kMaxValueNs));
      into.record_n(static_cast<std::uint64_t>(std::llround(capped)), static_cast<std::uint64_t>(v));
    }
    ++index;
  }
}

std::optional<double> number(const std::string& s) {
  try {
    std::size_t used = 0;
    double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

HdrLog read_hdr_log(const std::string& text, double unit_ns, double warmup_s) {
  struct Interval {
    double start;
    std::string encoded;
    std::size_t line;
  };
  std::vector<Interval> intervals;
  std::istringstream in(text);
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || line[0] == '"' || line.rfind("StartTimestamp", 0) == 0) continue;
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string part; std::getline(fields, part, ',');) f.push_back(part);
    if (!f.empty() && f[0].rfind("Tag=", 0) == 0) f.erase(f.begin());
    if (f.size() != 4)
      throw InputError(
          fmt::format("hdr-log line {}: {} fields, not start,length,max,histogram", line_no, f.size()));
    auto start = number(f[0]);
    if (!start || !number(f[1]) || !number(f[2]))
      throw InputError(fmt::format("hdr-log line {}: start, length and max must be numbers", line_no));
    intervals.push_back(Interval{*start, f[3], line_no});
  }
  if (intervals.empty()) throw InputError("hdr-log: no interval histogram in the output");
  double first = intervals.front().start;
  for (const auto& i : intervals) first = std::min(first, i.start);
  HdrLog out;
  for (const auto& i : intervals) {
    if (i.start - first < warmup_s - 1e-6) {
      ++out.skipped;
      continue;
    }
    add_histogram(i.encoded, unit_ns, i.line, out.histogram);
    ++out.intervals;
  }
  return out;
}

}  // namespace wb
