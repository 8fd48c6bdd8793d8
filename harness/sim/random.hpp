#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <string_view>

#include "core/queue_network.hpp"

namespace wb::sim {

// splitmix64: mixes seeds so that streams for (seed, sample, load, trial) are independent.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return mix(a ^ mix(b)); }

// FNV-1a, for folding a sample key into a seed.
inline std::uint64_t hash_text(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// A service-time source with a given mean. std:: distributions are implementation-defined but
// fixed for one standard library, so a seed reproduces a run on the same toolchain.
class ServiceTime {
 public:
  ServiceTime(ServiceDistribution d, double mean, double cv) : dist_(d), mean_(mean) {
    double s2 = std::log(1.0 + cv * cv);
    sigma_ = std::sqrt(s2);
    mu_ = std::log(mean) - s2 / 2.0;
  }
  double draw(std::mt19937_64& rng) const {
    switch (dist_) {
      case ServiceDistribution::kDeterministic: return mean_;
      case ServiceDistribution::kLognormal: return std::exp(mu_ + sigma_ * normal(rng));
      case ServiceDistribution::kExponential: break;
    }
    return -mean_ * std::log1p(-uniform(rng));
  }
  double mean() const { return mean_; }

  static double uniform(std::mt19937_64& rng) {  // [0, 1)
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
  }

 private:
  static double normal(std::mt19937_64& rng) {  // Box-Muller, one value per call
    double u1 = 1.0 - uniform(rng), u2 = uniform(rng);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  ServiceDistribution dist_;
  double mean_;
  double mu_ = 0, sigma_ = 0;
};

}  // namespace wb::sim
