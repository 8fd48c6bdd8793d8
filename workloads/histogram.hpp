#pragma once
// LatencyHistogram: a log-linear latency histogram (HdrHistogram-like) of nanoseconds with exact merge
// and a compact text encoding, so the controller can merge several wbload processes' results. 128
// linear sub-buckets per octave bound a reported percentile's relative error by 1/256 over 1 µs..100 s
// (docs/decisions.md#latency-histogram); values above kMaxValueNs (~18 min) go to the last bucket
// (max() stays exact). Merge adds bucket counts: count, min and max exact, sums up to rounding.
// Percentiles are nearest rank: the p-th is the value of rank ceil(p/100 * n) (rank 1 for p = 0).
// Encoding "wb-loglin-v1" (encode()/decode()): base64 (RFC 4648, '=' padding) of unsigned LEB128
// varints, for each non-empty bucket in ascending index order (index - previous_index - 1), count,
// with previous_index starting at -1; an empty histogram encodes to "". The JSON form is
//   {"encoding":"wb-loglin-v1","unit":"ns","precision_bits":8,"count":N,"min":ns,"max":ns,
//    "sum":ns,"sum_sq":ns^2,"buckets":"<base64>"}
// and from_json throws wb::InputError for another encoding or precision, or figures no set of
// recorded values has. Threads: not synchronized; record per thread, then merge.
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

// RFC 4648 base64 with '=' padding; InputError naming `what` for a malformed input.
std::string base64_decode(std::string_view in, std::string_view what);

}  // namespace wb
