#pragma once
// Planning active probes after a mismatch [000 §3.3.2, §6]: samples that vary one of the attributes
// that best explain it over its levels around the mismatch point, the other factors kept there.
// Pure functions: no I/O, no clock; `now` is passed in.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/factor.hpp"
#include "core/sample.hpp"
#include "models/mismatch.hpp"
#include "models/zcart.hpp"

namespace wb {

// [probing] of a testbed config. Every key is optional.
struct ProbeConfig {
  double tolerance = kMismatchTolerance;  // relative, for the mismatch rule and Z-CART fidelity
  double window_start_s = 0;              // probes become due this long after they are planned
  int top_attributes = 2;                 // probe this many of the best-ranked attributes
  int radius = 2;                         // levels on each side of the mismatch point; 0: every level
  int min_leaf = 3;                       // Z-CART: observations in each child of a split
  double poll_s = 60;                     // `agent` without --once: sleep between looks for due probes
  // Benchmarking hours the probes may spend in all (their searches' cost); none are claimed once
  // it is spent. Unset: no limit.
  std::optional<double> budget_h;
};

// Reads [probing]; throws InputError "FILE:LINE:probing.KEY: ..." for a bad or unknown key.
ProbeConfig probe_config(const Config& config);

struct PlannedProbe {
  Sample sample;
  std::string attribute;  // the factor it varies
  double priority = 0;    // higher runs first
  int node = -1;          // plan_boundary_probes: the split it brackets
};

// For each of the first `top` attributes of `ranked` that is a factor with a level in `at`: one probe
// per other level within `radius` levels (0: all), skipping keys in `taken` or planned earlier here.
// Priority: the attribute's rank first, then nearness in levels to the mismatch point.
std::vector<PlannedProbe> plan_probes(const Sample& at, const std::vector<RankedAttribute>& ranked,
                                      const std::vector<Factor>& factors, const std::set<std::string>& taken,
                                      int top, int radius = 0);

// A measured sample and whether it deviates from the expectation (a mismatch was recorded there).
struct MeasuredSample {
  Sample sample;
  bool deviates = false;
};

// Probes that bisect between what deviates and what agrees [000 §3.3.2], whatever attribute the
// tree split on: for each deviating sample and each numeric factor, the nearest measured sample on
// either side along that factor (every other factor equal); where that one agrees and declared
// levels lie strictly between the two, a probe at the middle one of them by index, the other
// factors as at the deviating sample. Each measured probe halves its gap, until every boundary
// seen along a factor lies between adjacent levels; for a factor declared `between = true`, on
// between adjacent levels, at their midpoint (a whole number when the levels are), until adjacent
// whole numbers or 1/64 of the range. `priority` is every probe's; `node` is -1.
std::vector<PlannedProbe> plan_bisecting_probes(const std::vector<MeasuredSample>& measured,
                                                const std::vector<Factor>& factors, double priority);

// Probes that bracket what the tree learned [000 §3.3.2]: for each split of `tree` on a numeric
// factor (an attribute named as factors[j], j its position) whose nearest observed values either
// side, lo and hi, have declared levels strictly between them, probes at the level halfway between
// by index, the other factors as at an observation with value lo and at one with value hi. Each
// measured probe moves the split or confirms it, and the next refit plans the next halving, until
// the boundary lies between adjacent levels. `priority` is every probe's.
std::vector<PlannedProbe> plan_boundary_probes(const ZCart& tree, const std::vector<Factor>& factors,
                                               double priority);

// The unix time a probe planned at `now` becomes due.
std::int64_t probe_not_before(const ProbeConfig& config, std::int64_t now);

}  // namespace wb
