#include "models/mismatch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"

namespace wb {

bool is_mismatch(double expected, const MeasuredPeak& m, double tolerance) {
  if (!(expected > 0) || !std::isfinite(expected) || !(m.value > 0) || !std::isfinite(m.value)) return false;
  const bool outside = expected < m.low || expected > m.high;
  return outside && std::abs(expected - m.value) > tolerance * m.value;
}

double class_entropy(std::size_t mismatches, std::size_t total) {
  if (total == 0 || mismatches == 0 || mismatches == total) return 0;
  const double p = static_cast<double>(mismatches) / static_cast<double>(total);
  return -p * std::log2(p) - (1 - p) * std::log2(1 - p);
}

namespace {

struct Counts {
  std::size_t n = 0, bad = 0;
};

double split_gain(double parent, const Counts& total, const Counts& left) {
  const Counts right{total.n - left.n, total.bad - left.bad};
  if (left.n == 0 || right.n == 0) return 0;
  const double n = static_cast<double>(total.n);
  return parent - static_cast<double>(left.n) / n * class_entropy(left.bad, left.n) -
         static_cast<double>(right.n) / n * class_entropy(right.bad, right.n);
}

}  // namespace

std::vector<RankedAttribute> rank_attributes(const std::vector<Attribute>& schema,
                                             const std::vector<ClassifiedObservation>& observations) {
  Counts total;
  for (const auto& o : observations) {
    if (o.values.size() != schema.size()) {
      throw InputError(fmt::format("mismatch ranking: an observation has {} values for {} attributes",
                                   o.values.size(), schema.size()));
    }
    ++total.n;
    if (o.mismatch) ++total.bad;
  }
  const double parent = class_entropy(total.bad, total.n);
  std::vector<RankedAttribute> out;
  for (std::size_t a = 0; a < schema.size(); ++a) {
    std::map<double, Counts> by_level;  // ascending: numeric thresholds scan it in order
    for (const auto& o : observations) {
      Counts& c = by_level[o.values[a]];
      ++c.n;
      if (o.mismatch) ++c.bad;
    }
    double best = 0;
    if (schema[a].kind == AttributeKind::kNumeric) {
      Counts left;
      for (const auto& [level, c] : by_level) {
        left.n += c.n;
        left.bad += c.bad;
        best = std::max(best, split_gain(parent, total, left));
      }
    } else {
      for (const auto& [level, c] : by_level) best = std::max(best, split_gain(parent, total, c));
    }
    out.push_back(RankedAttribute{schema[a].name, best});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RankedAttribute& x, const RankedAttribute& y) { return x.gain > y.gain; });
  return out;
}

}  // namespace wb
