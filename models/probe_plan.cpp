#include "models/probe_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>

#include "core/config_section.hpp"

namespace wb {

ProbeConfig probe_config(const Config& config) {
  ProbeConfig p;
  ConfigSection root(config.root(), config.file(), "");
  std::optional<ConfigSection> s = root.table("probing");
  if (!s) return p;
  // Durations up to about three years: past that a wait is a typo, and time arithmetic on it overflows.
  constexpr double kMaxWait = 1e8;
  p.tolerance = s->number_or("tolerance", p.tolerance, {0, 1, true, true, "must be in (0, 1), e.g. 0.15"});
  p.window_start_s = s->number_or("window_start_s", p.window_start_s,
                                  Bounds::non_negative(kMaxWait, "must be >= 0 seconds, at most 1e8"));
  p.top_attributes = s->integer_or("top_attributes", p.top_attributes, 1, 1000, "must be from 1 to 1000");
  p.radius = s->integer_or("radius", p.radius, 0, 1000, "must be from 0 (every level) to 1000 levels");
  p.min_leaf = s->integer_or("min_leaf", p.min_leaf, 1, 1000000, "must be from 1 to 1000000");
  p.poll_s = s->number_or("poll_s", p.poll_s, Bounds::positive(kMaxWait, "must be > 0 seconds, at most 1e8"));
  if (s->has("budget_h"))
    p.budget_h = s->number_or("budget_h", 0, Bounds::positive(1e6, "must be > 0 hours, at most 1e6"));
  if (s->has("lock_timeout_s")) {
    s->fail("lock_timeout_s",
            "no longer used: an agent's probe is taken over when the agent dies (its heartbeat stops "
            "for [testbed] lease_timeout_s); remove the key");
  }
  s->finish();
  return p;
}

std::vector<PlannedProbe> plan_probes(const Sample& at, const std::vector<RankedAttribute>& ranked,
                                      const std::vector<Factor>& factors, const std::set<std::string>& taken,
                                      int top, int radius) {
  std::vector<PlannedProbe> out;
  std::set<std::string> seen = taken;
  seen.insert(at.key());
  const int n = std::min(top, static_cast<int>(ranked.size()));
  for (int rank = 0; rank < n; ++rank) {
    const std::string& name = ranked[static_cast<std::size_t>(rank)].name;
    auto f = std::find_if(factors.begin(), factors.end(), [&](const Factor& x) { return x.name == name; });
    if (f == factors.end() || f->levels.size() < 2 || !at.has(name)) continue;
    std::optional<std::size_t> here = f->find_level(at.value(name));
    if (!here) continue;
    for (std::size_t i = 0; i < f->levels.size(); ++i) {
      if (i == *here) continue;
      const double distance = std::abs(static_cast<double>(i) - static_cast<double>(*here));
      if (radius > 0 && distance > radius) continue;
      Sample s = at;
      s.set(name, f->levels[i]);
      if (!seen.insert(s.key()).second) continue;
      // Ranks are 100 apart, so nearness (at most a factor's level count) orders within a rank.
      out.push_back(PlannedProbe{s, name, 100.0 * (n - rank) - distance});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const PlannedProbe& a, const PlannedProbe& b) { return a.priority > b.priority; });
  return out;
}

std::int64_t probe_not_before(const ProbeConfig& config, std::int64_t now) {
  return now + static_cast<std::int64_t>(std::ceil(config.window_start_s));
}

std::vector<PlannedProbe> plan_boundary_probes(const ZCart& tree, const std::vector<Factor>& factors,
                                               double priority) {
  std::vector<PlannedProbe> out;
  std::set<std::string> planned;
  const ObservationTable& obs = tree.observations();
  const auto& schema = tree.schema();
  for (std::size_t j = 0; j < factors.size(); ++j)  // the factors come first, in config order
    if (j >= schema.size() || schema[j].name != factors[j].name) return out;
  for (std::size_t id = 0; id < tree.nodes().size(); ++id) {
    const ZCart::Node& nd = tree.nodes()[id];
    if (nd.attr < 0 || !nd.left_cats.empty()) continue;
    const auto a = static_cast<std::size_t>(nd.attr);
    if (a >= factors.size() || schema[a].name != factors[a].name || !factors[a].numeric) continue;
    const std::vector<std::uint32_t> rows = tree.rows_under(static_cast<int>(id));
    std::optional<std::uint32_t> at_lo, at_hi;  // a row with the largest value left, the smallest right
    for (std::uint32_t r : rows) {
      const double v = obs.value(r, a);
      if (v <= nd.threshold && (!at_lo || v > obs.value(*at_lo, a))) at_lo = r;
      if (v > nd.threshold && (!at_hi || v < obs.value(*at_hi, a))) at_hi = r;
    }
    if (!at_lo || !at_hi) continue;
    std::vector<double> between;
    for (double l : factors[a].numeric_levels)
      if (l > obs.value(*at_lo, a) && l < obs.value(*at_hi, a)) between.push_back(l);
    if (between.empty()) continue;
    std::sort(between.begin(), between.end());
    const double level = between[(between.size() - 1) / 2];
    for (std::uint32_t r : {*at_lo, *at_hi}) {
      Sample s;
      bool known = true;
      for (std::size_t j = 0; j < factors.size(); ++j) {
        const double v = j == a ? level : obs.value(r, j);
        const std::string text = factors[j].axis_text(v);
        known = known && !text.empty();
        s.set(factors[j].name, text);
      }
      if (!known || !planned.insert(s.key()).second) continue;
      out.push_back(PlannedProbe{s, factors[a].name, priority, static_cast<int>(id)});
    }
  }
  return out;
}

namespace {

// The value halfway between two adjacent values of a `between` factor: a whole number when every
// level is one (threads, disks), and none once the two are adjacent whole numbers or, for a
// continuous factor, closer than 1/64 of the levels' range.
std::optional<double> value_between(const Factor& f, double lo, double hi) {
  const bool whole = std::all_of(f.numeric_levels.begin(), f.numeric_levels.end(),
                                 [](double l) { return l == std::floor(l); });
  if (whole) {
    const double m = std::floor((lo + hi) / 2);
    return m > lo && m < hi ? std::optional<double>(m) : std::nullopt;
  }
  const auto [min, max] = std::minmax_element(f.numeric_levels.begin(), f.numeric_levels.end());
  if (hi - lo < (*max - *min) / 64) return std::nullopt;
  return (lo + hi) / 2;
}

}  // namespace

std::vector<PlannedProbe> plan_bisecting_probes(const std::vector<MeasuredSample>& measured,
                                                const std::vector<Factor>& factors, double priority) {
  std::vector<PlannedProbe> out;
  std::set<std::string> planned;
  for (const MeasuredSample& d : measured) {
    if (!d.deviates) continue;
    for (const Factor& f : factors) {
      if (!f.numeric || (f.numeric_levels.size() < 3 && !f.between) || !d.sample.has(f.name)) continue;
      const std::optional<double> at = f.axis_value(d.sample.value(f.name));
      if (!at) continue;
      // The nearest measured sample below and above `at` along f, the other factors as at d.
      const MeasuredSample* below = nullptr;
      const MeasuredSample* above = nullptr;
      double v_below = 0, v_above = 0;
      for (const MeasuredSample& m : measured) {
        if (!m.sample.has(f.name)) continue;
        bool same_elsewhere = m.sample.values().size() == d.sample.values().size();
        for (const auto& [name, value] : d.sample.values())
          if (name != f.name && (!m.sample.has(name) || m.sample.value(name) != value))
            same_elsewhere = false;
        const std::optional<double> v = f.axis_value(m.sample.value(f.name));
        if (!same_elsewhere || !v) continue;
        if (*v < *at && (below == nullptr || *v > v_below)) below = &m, v_below = *v;
        if (*v > *at && (above == nullptr || *v < v_above)) above = &m, v_above = *v;
      }
      for (const auto& [other, v_other] : {std::pair{below, v_below}, std::pair{above, v_above}}) {
        if (other == nullptr || other->deviates) continue;
        const double lo = std::min(*at, v_other), hi = std::max(*at, v_other);
        std::vector<double> between;
        for (double l : f.numeric_levels)
          if (l > lo && l < hi) between.push_back(l);
        std::sort(between.begin(), between.end());
        std::optional<double> mid;
        if (!between.empty()) {
          mid = between[(between.size() - 1) / 2];
        } else if (f.between) {
          mid = value_between(f, lo, hi);
        }
        if (!mid) continue;
        Sample s = d.sample;
        s.set(f.name, f.axis_text(*mid));
        if (planned.insert(s.key()).second) out.push_back(PlannedProbe{s, f.name, priority, -1});
      }
    }
  }
  return out;
}

}  // namespace wb
