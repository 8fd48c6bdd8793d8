#pragma once
// LatencyHistogram: a log-linear latency histogram (HdrHistogram-like) with exact merge and a
// compact text encoding, so the controller can merge the results of several wbload processes.
//
// Layout. Values are nanoseconds (uint64). With kPrecisionBits = P = 8:
//   - values v < 2^P (256 ns) have one bucket each (exact);
//   - for v >= 2^P let m = floor(log2 v) and shift = m - (P - 1); the bucket is
//     index = (m - P + 1) * 2^(P-1) + (v >> shift),  i.e. 128 linear sub-buckets per octave.
// A bucket [lo, lo + 2^shift) has lo >= 2^(P-1) * 2^shift, so its width is at most 1/128 of any
// value in it. Percentiles report the bucket midpoint (clamped to the exact min/max), so the
// relative error of a reported percentile is at most 1/256 ≈ 0.4% — well inside the required
// 1% — over the whole range 1 µs .. 100 s. Values above kMaxValueNs (~18 min) are clamped into
// the last bucket (max() still reports the exact value).
//
// Merge is exact: bucket counts add, so merge(a, b) equals the histogram of the union of the
// recorded values (count, min, max exactly; sum and sum of squares up to double rounding).
//
// Percentile definition (both here and in the tests): nearest rank — p-th percentile is the
// value of rank ceil(p/100 * n) in ascending order (rank 1 for p = 0).
//
// Compact encoding (what `encode()` returns and `decode()` reads), version "wb-loglin-v1":
//   base64 (RFC 4648, with '=' padding) of a byte string of unsigned LEB128 varints:
//     for each non-empty bucket in ascending index order: (index - previous_index - 1), count
//   where previous_index starts at -1. Empty histograms encode to "".
// The JSON form (see to_json/from_json) is
//   {"encoding":"wb-loglin-v1","unit":"ns","precision_bits":8,"count":N,"min":ns,"max":ns,
//    "sum":ns,"sum_sq":ns^2,"buckets":"<base64>"}
// and from_json rejects any other encoding or precision with wb::InputError, as well as figures
// no set of recorded values has: bucket counts that do not add up to count, min/max outside the
// buckets, a negative or non-finite sum, a mean outside [min, max], sum_sq below sum²/count or
// above count·max².
//
// Threads: not synchronized; each thread records into its own histogram and they are merged.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wb {

class LatencyHistogram {
 public:
  static constexpr int kPrecisionBits = 8;
  static constexpr int kMaxMagnitude = 40;  // highest octave: values < 2^40 ns (~18 min)
  static constexpr std::uint64_t kMaxValueNs = (std::uint64_t{1} << kMaxMagnitude) - 1;
  static constexpr const char* kEncoding = "wb-loglin-v1";

  LatencyHistogram();

  void record(std::uint64_t value_ns) { record_n(value_ns, 1); }
  void record_n(std::uint64_t value_ns, std::uint64_t n);

  // Adds every value of `other` to this histogram (exact for counts, min, max).
  void merge(const LatencyHistogram& other);
  void reset();

  std::uint64_t count() const { return count_; }
  std::uint64_t min_ns() const { return count_ ? min_ : 0; }
  std::uint64_t max_ns() const { return max_; }
  double mean_ns() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  double stddev_ns() const;  // population standard deviation
  // p in [0, 100]; 0 for an empty histogram.
  std::uint64_t percentile_ns(double p) const;

  // Bucket index of a value and the value range [low, high] of a bucket (for tests and tools).
  static std::size_t bucket_index(std::uint64_t value_ns);
  static std::uint64_t bucket_low(std::size_t index);
  static std::uint64_t bucket_high(std::size_t index);
  static std::size_t bucket_count();

  std::string encode_buckets() const;
  nlohmann::json to_json() const;
  // Throws wb::InputError naming the field on a malformed or foreign encoding.
  static LatencyHistogram from_json(const nlohmann::json& j);

  bool operator==(const LatencyHistogram& o) const;

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  double sum_ = 0;
  double sum_sq_ = 0;
};

}  // namespace wb
