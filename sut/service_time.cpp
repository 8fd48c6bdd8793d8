#include "sut/service_time.hpp"

#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace wb::sut {

Distribution parse_distribution(std::string_view text, std::string_view what) {
  if (text == "exponential") return Distribution::kExponential;
  if (text == "lognormal") return Distribution::kLognormal;
  if (text == "deterministic") return Distribution::kDeterministic;
  throw InputError(std::string(what) + ": unknown distribution '" + std::string(text) +
                   "' (expected exponential, lognormal or deterministic)");
}

std::string_view to_string(Distribution d) noexcept {
  switch (d) {
    case Distribution::kExponential: return "exponential";
    case Distribution::kLognormal: return "lognormal";
    case Distribution::kDeterministic: return "deterministic";
  }
  return "?";
}

SplitMix64::SplitMix64(std::uint64_t seed, std::uint64_t stream) noexcept : state_(seed) {
  // Mix the stream number through one output step so neighbouring streams are unrelated.
  SplitMix64 mixer(stream ^ 0x6a09e667f3bcc909ULL);
  state_ ^= mixer();
}

SplitMix64::result_type SplitMix64::operator()() noexcept {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() noexcept {
  // 53 random bits, shifted by half a step so the result is never 0 or 1.
  return (static_cast<double>((*this)() >> 11) + 0.5) * 0x1.0p-53;
}

double draw_ms(const ServiceTime& t, SplitMix64& rng) noexcept {
  if (t.mean_ms <= 0.0) return 0.0;
  switch (t.dist) {
    case Distribution::kDeterministic: return t.mean_ms;
    case Distribution::kExponential: return -t.mean_ms * std::log(rng.uniform());
    case Distribution::kLognormal: {
      // For mean m and cv c: sigma^2 = ln(1 + c^2), mu = ln(m) - sigma^2 / 2.
      const double sigma2 = std::log1p(t.cv * t.cv);
      const double mu = std::log(t.mean_ms) - sigma2 / 2.0;
      const double u1 = rng.uniform();
      const double u2 = rng.uniform();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      return std::exp(mu + std::sqrt(sigma2) * z);
    }
  }
  return t.mean_ms;
}

}  // namespace wb::sut
