#include "models/mismatch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
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

std::string stages_of_center(const CenterResult& center) {
  if (center.pool) return "thread_queue";
  if (center.name == "cpu") return "cpu";
  if (center.name == "disk") return "disk_queue+disk";
  return "";
}

std::vector<CenterDeviation> center_deviations(const std::vector<CenterResult>& centers,
                                               const std::map<std::string, double>& stage_ms) {
  std::vector<CenterDeviation> out;
  for (const CenterResult& c : centers) {
    const std::string stages = stages_of_center(c);
    if (stages.empty() || !std::isfinite(c.response_ms)) continue;
    double measured = 0;
    bool covered = true;
    for (std::size_t start = 0; start <= stages.size();) {
      std::size_t end = stages.find('+', start);
      if (end == std::string::npos) end = stages.size();
      auto it = stage_ms.find(stages.substr(start, end - start));
      if (it == stage_ms.end()) {
        covered = false;
        break;
      }
      measured += it->second;
      start = end + 1;
    }
    if (!covered) continue;
    CenterDeviation d;
    d.center = c.name;
    d.stages = stages;
    d.predicted_ms = c.response_ms;
    d.measured_ms = measured;
    d.deviation = c.response_ms > 0 ? (measured - c.response_ms) / c.response_ms
                                    : (measured > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    out.push_back(d);
  }
  double total = 0;
  for (const auto& d : out) total += d.predicted_ms;
  for (auto& d : out) d.share = total > 0 ? (d.measured_ms - d.predicted_ms) / total : 0.0;
  return out;
}

std::optional<CenterDeviation> deviating_center(const std::vector<CenterDeviation>& deviations) {
  const CenterDeviation* best = nullptr;
  for (const auto& d : deviations) {
    if (best == nullptr || std::abs(d.share) > std::abs(best->share)) best = &d;
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

std::string center_deviation_text(const CenterDeviation& d) {
  std::string rel = std::isfinite(d.deviation) ? fmt::format("{:+.0f}%", d.deviation * 100) : "predicted 0";
  return fmt::format("{}: {:.3g} ms measured vs {:.3g} ms predicted ({})", d.center, d.measured_ms,
                     d.predicted_ms, rel);
}

}  // namespace wb
