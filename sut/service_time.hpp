#pragma once
// Service-time distributions of refserver's CPU and disks: a mean (ms), a shape (exponential,
// lognormal, deterministic) and a lognormal's coefficient of variation; draw_ms() is hand-written so a
// --seed gives the same times with any standard library. Immutable; a SplitMix64 serves one request.
#include <cstdint>
#include <string>
#include <string_view>

namespace wb::sut {

enum class Distribution { kExponential, kLognormal, kDeterministic };

// "exponential" | "lognormal" | "deterministic"; throws wb::InputError naming `what` otherwise.
Distribution parse_distribution(std::string_view text, std::string_view what);
std::string_view to_string(Distribution d) noexcept;

struct ServiceTime {
  Distribution dist = Distribution::kExponential;
  double mean_ms = 0.0;  // >= 0; 0 means "no service"
  double cv = 1.0;       // lognormal only: stddev / mean, > 0
};

// SplitMix64 (Steele, Lea, Flood 2014): a small, fast 64-bit generator with a full period, good
// enough for service times. Each request gets its own stream seeded from (seed, arrival number),
// so with one client issuing requests one at a time the times are reproducible.
class SplitMix64 {
 public:
  using result_type = std::uint64_t;
  explicit SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}
  SplitMix64(std::uint64_t seed, std::uint64_t stream) noexcept;
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  result_type operator()() noexcept;
  // Uniform in the open interval (0, 1).
  double uniform() noexcept;

 private:
  std::uint64_t state_;
};

// One service time in ms, >= 0. The sample mean converges to `t.mean_ms`.
double draw_ms(const ServiceTime& t, SplitMix64& rng) noexcept;

}  // namespace wb::sut
