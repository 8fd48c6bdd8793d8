#include "workloads/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.hpp"

namespace wb {
namespace {

constexpr int kP = LatencyHistogram::kPrecisionBits;
constexpr std::uint64_t kHalf = std::uint64_t{1} << (kP - 1);  // sub-buckets per octave
constexpr std::uint64_t kLinear = std::uint64_t{1} << kP;      // exact buckets below 2^P

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    std::uint32_t v = (std::uint32_t{static_cast<std::uint8_t>(in[i])} << 16) |
                      (std::uint32_t{static_cast<std::uint8_t>(in[i + 1])} << 8) |
                      static_cast<std::uint8_t>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kB64[(v >> s) & 63]);
  }
  std::size_t rest = in.size() - i;
  if (rest > 0) {
    std::uint32_t v = std::uint32_t{static_cast<std::uint8_t>(in[i])} << 16;
    if (rest == 2) v |= std::uint32_t{static_cast<std::uint8_t>(in[i + 1])} << 8;
    out.push_back(kB64[(v >> 18) & 63]);
    out.push_back(kB64[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kB64[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_decode(std::string_view in, std::string_view what) {
  if (in.size() % 4 != 0) throw InputError(std::string(what) + ": base64 length is not a multiple of 4");
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (std::size_t i = 0; i < in.size(); i += 4) {
    int pad = 0;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      char c = in[i + k];
      int d = 0;
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        ++pad;
      } else {
        if (pad > 0 || (d = b64_value(c)) < 0)
          throw InputError(std::string(what) + ": invalid base64 character at offset " +
                           std::to_string(i + k));
      }
      v = (v << 6) | static_cast<std::uint32_t>(d);
    }
    out.push_back(static_cast<char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
  }
  return out;
}

namespace {

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::uint64_t get_varint(std::string_view in, std::size_t& pos) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= in.size()) throw InputError("histogram.buckets: truncated varint");
    auto b = static_cast<std::uint8_t>(in[pos++]);
    v |= std::uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return v;
  }
  throw InputError("histogram.buckets: varint longer than 64 bits");
}

// sum and sum_sq give the mean and standard deviation and nothing else checks them: with n values in
// [min, max], sum/n lies in [min, max] and sum_sq in [sum²/n, n·max²], with a relative slack for
// rounding (docs/decisions.md#latency-histogram).
void check_sums(std::uint64_t count, std::uint64_t min, std::uint64_t max, double sum, double sum_sq) {
  auto text = [](double v) {
    std::ostringstream o;
    o.precision(10);
    o << v;
    return o.str();
  };
  if (!std::isfinite(sum) || sum < 0)
    throw InputError("histogram.sum: " + text(sum) + " is not a sum of latencies");
  if (!std::isfinite(sum_sq) || sum_sq < 0)
    throw InputError("histogram.sum_sq: " + text(sum_sq) + " is not a sum of squared latencies");
  if (count == 0) {
    if (sum != 0 || sum_sq != 0 || max != 0)
      throw InputError("histogram.sum: an empty histogram has a non-zero sum, sum_sq or max");
    return;
  }
  const double n = static_cast<double>(count);
  const double lo = static_cast<double>(min), hi = static_cast<double>(max);
  const double mean = sum / n;
  if (mean < lo * (1 - 1e-6) || mean > hi * (1 + 1e-6))
    throw InputError("histogram.sum: the mean " + text(mean) + " ns lies outside [min, max] = [" + text(lo) +
                     ", " + text(hi) + "] ns");
  if (sum_sq < sum * mean * (1 - 1e-6) - 1 || sum_sq > n * hi * hi * (1 + 1e-6) + 1)
    throw InputError("histogram.sum_sq: " + text(sum_sq) + " is impossible for " + text(n) +
                     " values with this sum and max");
}

}  // namespace

std::size_t LatencyHistogram::bucket_count() {
  return static_cast<std::size_t>((kMaxMagnitude - kP + 1) * kHalf + kHalf);
}

std::size_t LatencyHistogram::bucket_index(std::uint64_t v) {
  if (v > kMaxValueNs) v = kMaxValueNs;
  if (v < kLinear) return static_cast<std::size_t>(v);
  int m = std::bit_width(v) - 1;  // floor(log2 v) >= P
  int shift = m - (kP - 1);
  return static_cast<std::size_t>(static_cast<std::uint64_t>(m - kP + 1) * kHalf + (v >> shift));
}

std::uint64_t LatencyHistogram::bucket_low(std::size_t index) {
  if (index < kLinear) return index;
  std::uint64_t octave = (index - kHalf) / kHalf;  // = m - P + 1 >= 1
  std::uint64_t sub = index - octave * kHalf;      // in [kHalf, 2 * kHalf)
  return sub << octave;
}

std::uint64_t LatencyHistogram::bucket_high(std::size_t index) {
  if (index < kLinear) return index;
  std::uint64_t octave = (index - kHalf) / kHalf;
  return bucket_low(index) + (std::uint64_t{1} << octave) - 1;
}

LatencyHistogram::LatencyHistogram() : counts_(bucket_count(), 0) {}

void LatencyHistogram::record_n(std::uint64_t v, std::uint64_t n) {
  if (n == 0) return;
  counts_[bucket_index(v)] += n;
  if (count_ == 0 || v < min_) min_ = v;
  if (v > max_) max_ = v;
  count_ += n;
  double d = static_cast<double>(v);
  sum_ += d * static_cast<double>(n);
  sum_sq_ += d * d * static_cast<double>(n);
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
  min_ = count_ == 0 ? o.min_ : std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  count_ += o.count_;
  sum_ += o.sum_;
  sum_sq_ += o.sum_sq_;
}

void LatencyHistogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = min_ = max_ = 0;
  sum_ = sum_sq_ = 0;
}

double LatencyHistogram::stddev_ns() const {
  if (count_ == 0) return 0.0;
  double n = static_cast<double>(count_);
  double mean = sum_ / n;
  double var = sum_sq_ / n - mean * mean;
  return var > 0 ? std::sqrt(var) : 0.0;
}

std::uint64_t LatencyHistogram::percentile_ns(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      std::uint64_t lo = bucket_low(i);
      std::uint64_t mid = lo + (bucket_high(i) - lo) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

std::string LatencyHistogram::encode_buckets() const {
  std::string raw;
  std::int64_t prev = -1;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    put_varint(raw, static_cast<std::uint64_t>(static_cast<std::int64_t>(i) - prev - 1));
    put_varint(raw, counts_[i]);
    prev = static_cast<std::int64_t>(i);
  }
  return base64_encode(raw);
}

nlohmann::json LatencyHistogram::to_json() const {
  return nlohmann::json{{"encoding", kEncoding}, {"unit", "ns"},      {"precision_bits", kP},
                        {"count", count_},       {"min", min_ns()},   {"max", max_},
                        {"sum", sum_},           {"sum_sq", sum_sq_}, {"buckets", encode_buckets()}};
}

LatencyHistogram LatencyHistogram::from_json(const nlohmann::json& j) {
  auto field = [&](const char* key) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(key))
      throw InputError(std::string("histogram: missing field '") + key + "'");
    return j.at(key);
  };
  auto u64 = [&](const char* key) {
    const auto& v = field(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      throw InputError(std::string("histogram.") + key + ": not a non-negative integer");
    return v.get<std::uint64_t>();
  };
  auto num = [&](const char* key) {
    const auto& v = field(key);
    if (!v.is_number()) throw InputError(std::string("histogram.") + key + ": not a number");
    return v.get<double>();
  };
  const auto& enc = field("encoding");
  if (!enc.is_string() || enc.get<std::string>() != kEncoding)
    throw InputError(std::string("histogram.encoding: expected \"") + kEncoding + "\"");
  if (u64("precision_bits") != static_cast<std::uint64_t>(kP))
    throw InputError("histogram.precision_bits: expected " + std::to_string(kP));
  const auto& unit = field("unit");
  if (!unit.is_string() || unit.get<std::string>() != "ns")
    throw InputError("histogram.unit: expected \"ns\"");
  const auto& b = field("buckets");
  if (!b.is_string()) throw InputError("histogram.buckets: not a string");

  LatencyHistogram h;
  std::string raw = base64_decode(b.get<std::string>(), "histogram.buckets");
  std::size_t pos = 0;
  std::int64_t first = -1, prev = -1;
  std::uint64_t total = 0;
  while (pos < raw.size()) {
    std::uint64_t gap = get_varint(raw, pos);
    std::uint64_t n = get_varint(raw, pos);
    std::uint64_t idx = static_cast<std::uint64_t>(prev + 1) + gap;
    if (gap >= h.counts_.size() || idx >= h.counts_.size())
      throw InputError("histogram.buckets: bucket index out of range");
    if (n == 0) throw InputError("histogram.buckets: empty bucket listed");
    if (n > std::numeric_limits<std::uint64_t>::max() - total)
      throw InputError("histogram.buckets: the counts add up past 2^64");
    h.counts_[idx] = n;
    total += n;
    prev = static_cast<std::int64_t>(idx);
    if (first < 0) first = prev;
  }
  h.count_ = u64("count");
  if (total != h.count_) throw InputError("histogram.count: does not equal the sum of the buckets");
  h.min_ = u64("min");
  h.max_ = u64("max");
  h.sum_ = num("sum");
  h.sum_sq_ = num("sum_sq");
  // What record() could have produced: min and max in the outermost non-empty buckets, and sums
  // between count * min and count * max (of squares likewise), up to the doubles' rounding.
  if (h.count_ == 0) {
    if (h.min_ != 0 || h.max_ != 0 || h.sum_ != 0 || h.sum_sq_ != 0)
      throw InputError("histogram: an empty histogram has min, max, sum and sum_sq 0");
    return h;
  }
  if (h.min_ > h.max_ || bucket_index(h.min_) != static_cast<std::size_t>(first) ||
      bucket_index(h.max_) != static_cast<std::size_t>(prev))
    throw InputError("histogram.min/max: inconsistent with the buckets");
  check_sums(h.count_, h.min_, h.max_, h.sum_, h.sum_sq_);
  return h;
}

bool LatencyHistogram::operator==(const LatencyHistogram& o) const {
  return counts_ == o.counts_ && count_ == o.count_ && min_ns() == o.min_ns() && max_ == o.max_;
}

}  // namespace wb
