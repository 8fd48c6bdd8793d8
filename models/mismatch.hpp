#pragma once
// Mismatch detection [000 §3.3.2; issue 8.2]: does a measured λ* disagree with the expectation
// model, and which attributes go with the disagreement?
//
// Pure functions: no I/O, no clock. The controller feeds them stored searches.
#include <optional>
#include <string>
#include <vector>

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

// The rule: a mismatch when the expectation lies outside [low, high] of the measurement AND is
// off by more than `tolerance` × measured. Both conditions: an expectation inside the interval
// is consistent with the evidence however far from the point value, and one just outside a
// tight interval is close enough to be noise in the model. Non-positive or non-finite values are
// never a mismatch (nothing to compare). `tolerance` >= 0.
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

// Information gain of each attribute on the class [000 eq. 1], best first (ties: schema order).
// An attribute's gain is that of its best binary partition, like a CART split: numeric attributes
// at a threshold between two adjacent observed levels, categorical ones as one level against the
// rest. Binary partitions keep an attribute with many levels from winning only because it
// fragments the table into small pure groups, which the many-way sum of eq. 1 rewards.
// Throws InputError when an observation's size differs from the schema's.
std::vector<RankedAttribute> rank_attributes(const std::vector<Attribute>& schema,
                                             const std::vector<ClassifiedObservation>& observations);

}  // namespace wb
