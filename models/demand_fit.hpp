#pragma once
// Recalibrating a queue network from measured λ* (docs/decisions.md#recalibration): one center's
// demand per visit scaled by a multiplier that is a function of one factor. At each measured sample
// the multiplier is solved from its λ* (the model's λ* falls as the demand grows); between measured
// levels of the factor it is interpolated. This learns the shapes a piecewise-constant correction
// cannot: a demand that drifts with a factor, or a center that becomes the bottleneck.
// Pure functions of (resolved network, sample); units as in configs (ms, requests/s).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/queue_network.hpp"
#include "core/sample.hpp"

namespace wb {

// Multipliers are solved within [1/kMaxDemandMultiplier, kMaxDemandMultiplier].
constexpr double kMaxDemandMultiplier = 64;

// A copy of `resolved` (QueueNetwork::resolved for `sample`) with `center`'s demand per visit
// multiplied by k. Error when the network has no such non-pool center.
QueueNetwork scale_demand(const QueueNetwork& resolved, const Sample& sample, const std::string& center,
                          double k);

// The multiplier of `center`'s demand for which the model's λ* at R_sat equals `measured` (> 0): the
// one nearest 1 when a range does (while the center is not the bottleneck λ* does not move). Not
// exact when none in range does (the center cannot explain the measurement): then the bound.
struct SolvedMultiplier {
  double k = 1;
  bool exact = true;
};
SolvedMultiplier solve_multiplier(const QueueNetwork& resolved, const Sample& sample,
                                  const std::string& center, double r_sat_ms, double measured);

// log k of one center as a function of one factor. A numeric factor: at each measured level the
// mean log k of its samples; k linear between levels, the nearest level's beyond them. A categorical
// factor: the level's mean, 0 (the configured demand) at a level nobody measured.
struct DemandCurve {
  std::string center;
  std::string factor;
  bool numeric = true;
  std::vector<std::pair<double, double>> knots;  // numeric: (level, mean log k), ascending
  std::map<std::string, double> levels;          // categorical: level -> mean log k
  std::size_t points = 0;                        // samples the curve was fitted to

  double log_multiplier(const Sample& sample) const;
  // "disk demand x 1.02 at threads=1 ... x 3.00 at threads=100"
  std::string describe() const;
};

// The curves a recalibrated network applies: one, solved from measured λ* (which can move only one
// center's demand at a time), or one per center a SUT's stage times measure (they give every such
// center's demand at every sample).
struct Recalibration {
  std::vector<DemandCurve> curves;
  bool from_stages = false;
  // "disk demand x1.50 at disks=1 ... (from λ*)"; curves joined by "; "
  std::string describe() const;
};

// `resolved` with every curve of `r` applied at `sample` (scale_demand, one center after another).
QueueNetwork recalibrate(const QueueNetwork& resolved, const Sample& sample, const Recalibration& r);

struct CurvePoint {
  Sample sample;
  double log_k = 0;
};
// The curve through `points` (only exact multipliers belong there), each sample's level of `factor`;
// `leave_out`: the index of a point to fit without (held-out error). Error when a sample has no
// level of `factor`, or, for a numeric factor, a level that is not a number.
DemandCurve fit_demand_curve(const std::string& center, const std::string& factor, bool numeric,
                             const std::vector<CurvePoint>& points,
                             std::optional<std::size_t> leave_out = std::nullopt);

}  // namespace wb
