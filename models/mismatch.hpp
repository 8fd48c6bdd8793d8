#pragma once
// Mismatch detection [000 §3.2, §3.3]: does a measured λ* disagree with the expectation model, and
// which attributes go with the disagreement? Pure functions: no I/O, no clock.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/open_network.hpp"
#include "models/zcart.hpp"

namespace wb {

// The default relative tolerance of the mismatch rule ([probing] tolerance).
constexpr double kMismatchTolerance = 0.15;

// A measurement of λ*: the value and the interval the evidence cannot rule out (SearchResult
// peak_low/peak_high, or a CI). high may be +infinity.
struct MeasuredPeak {
  double value = 0;
  double low = 0;
  double high = 0;
};

// A mismatch when the expectation lies outside [low, high] of the measurement AND is off by more than
// `tolerance` × measured (docs/decisions.md#mismatch-rule). Non-positive or non-finite values are never
// a mismatch. `tolerance` >= 0.
bool is_mismatch(double expected, const MeasuredPeak& measured, double tolerance);

// One observation classified for the information-gain ranking: the factor values (schema order)
// and whether it was a mismatch.
struct ClassifiedObservation {
  std::vector<double> values;
  bool mismatch = false;
};

struct RankedAttribute {
  std::string name;
  double gain = 0;  // bits
};

// Entropy of the within-tolerance/mismatch class in bits [000 eq. 2].
double class_entropy(std::size_t mismatches, std::size_t total);

// Information gain [000 eq. 1] of each attribute's best binary partition (numeric at a threshold,
// categorical one level against the rest), best first, ties in schema order
// (docs/decisions.md#mismatch-rule). Throws InputError when an observation's size differs from the schema.
std::vector<RankedAttribute> rank_attributes(const std::vector<Attribute>& schema,
                                             const std::vector<ClassifiedObservation>& observations);

// One center of the expectation model next to the SUT's per-stage times [000 §3.2]: which center's
// measured time deviates most from its prediction at the measured rate.
struct CenterDeviation {
  std::string center;
  std::string stages;       // the stages that measure it, e.g. "disk_queue+disk"
  double predicted_ms = 0;  // per request (CenterResult::response_ms)
  double measured_ms = 0;   // per request: the sum of its stages' means
  double deviation = 0;     // (measured - predicted) / predicted; +inf when predicted is 0
  double share = 0;         // (measured - predicted) / the predicted R of all compared centers
};

// The stages of refserver (sut/stage_stats.hpp) that measure a center, "+"-joined: a pool (its
// response is the wait for a token) -> "thread_queue"; a center named "cpu" -> "cpu"; one named
// "disk" -> "disk_queue+disk" (its response is wait plus service). Empty: no stage covers it.
std::string stages_of_center(const CenterResult& center);

// Each model center a stage covers, compared with the measured stage means (ms per request, by
// stage name). Centers the stages do not cover, or whose stages are missing from `stage_ms`, or
// whose prediction is not finite (saturated), are skipped. In model order.
std::vector<CenterDeviation> center_deviations(const std::vector<CenterResult>& centers,
                                               const std::map<std::string, double>& stage_ms);

// The center with the largest |share| of the difference between measured and predicted response time;
// `deviation`, its ratio to its own prediction, is reported but does not rank
// (docs/decisions.md#mismatch-rule). nullopt when `deviations` is empty.
std::optional<CenterDeviation> deviating_center(const std::vector<CenterDeviation>& deviations);

// "disk: 9.12 ms measured vs 3.05 ms predicted (+199%)".
std::string center_deviation_text(const CenterDeviation& d);

}  // namespace wb
