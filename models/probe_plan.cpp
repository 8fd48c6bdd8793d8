#include "models/probe_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/config_section.hpp"

namespace wb {

ProbeConfig probe_config(const Config& config) {
  ProbeConfig p;
  ConfigSection root(config.root(), config.file(), "");
  std::optional<ConfigSection> s = root.table("probing");
  if (!s) return p;
  p.tolerance = s->number_or("tolerance", p.tolerance);
  if (!(p.tolerance > 0) || p.tolerance >= 1) s->fail("tolerance", "must be in (0, 1), e.g. 0.15");
  p.window_start_s = s->number_or("window_start_s", p.window_start_s);
  if (!(p.window_start_s >= 0)) s->fail("window_start_s", "must be >= 0 seconds");
  p.top_attributes = static_cast<int>(s->integer_or("top_attributes", p.top_attributes));
  if (p.top_attributes < 1) s->fail("top_attributes", "must be >= 1");
  p.radius = static_cast<int>(s->integer_or("radius", p.radius));
  if (p.radius < 0) s->fail("radius", "must be >= 0 levels (0: every level)");
  p.min_leaf = static_cast<int>(s->integer_or("min_leaf", p.min_leaf));
  if (p.min_leaf < 1) s->fail("min_leaf", "must be >= 1");
  p.poll_s = s->number_or("poll_s", p.poll_s);
  if (!(p.poll_s > 0)) s->fail("poll_s", "must be > 0 seconds");
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

}  // namespace wb
