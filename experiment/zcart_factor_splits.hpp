#pragma once
// A Z-CART split on an attribute derived from the expectation model (expected_peak, a center's
// λ_max, the bottleneck) read back as conditions on the factors: over every combination of the
// factors' levels that reaches the split, the side it sends them to, when that side is a box over
// the factors ("threads > 24 and disks > 2.5"). The tree learns where the model is wrong in
// whatever attributes separate it best; a user acts on factors (docs/decisions.md#zcart-attributes).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiment/zcart_attributes.hpp"
#include "models/zcart.hpp"

namespace wb {

struct FactorSplit {
  std::string split;        // "nfsd_lambda_max <= 820"
  std::string left, right;  // each side over the factors; "" when that side is no box over them
  std::size_t samples = 0;  // combinations of levels that reach the split
  std::size_t to_left = 0;  // of those, sent left
  // When a side is no box: the one-factor condition that sends the most of those combinations left
  // as the split does (CART's surrogate split), and how many it agrees on; "" when none agrees more
  // often than sending them all to the larger side.
  std::string surrogate;
  std::size_t agree = 0;
};

// Every split of `tree` on a non-factor attribute, in node order, read over the full grid of the
// config's factor levels. Empty when the grid has more than `max_samples` combinations or the tree
// splits on factors only. Combinations the attributes cannot encode (no finite expectation) are
// left out.
std::vector<FactorSplit> factor_splits(const ZCart& tree, const ZCartAttributes& attributes,
                                       std::size_t max_samples = 4096);

// A leaf of the tree read over the factors: the combinations of levels that reach it, as a box
// when they are one ("disks > 2.5 and threads > 24": where its correction applies).
struct FactorLeaf {
  std::string rule;         // the leaf's path in the tree's attributes
  double correction = 1;    // its ratio (1: it keeps the expectation)
  double cap = 0;           // > 0: a capped leaf
  std::size_t samples = 0;  // combinations of levels that reach it
  std::string box;          // those over the factors; "" when no box, or when they are all of them
};

// Every live leaf that a combination of the factors' levels reaches, in tree order, when the tree
// splits on a non-factor attribute (factor-only trees read as they are). Empty as factor_splits.
std::vector<FactorLeaf> factor_leaves(const ZCart& tree, const ZCartAttributes& attributes,
                                      std::size_t max_samples = 4096);

// Both readings from one encoding of the level grid (each combination solves the model once).
struct FactorReading {
  std::vector<FactorSplit> splits;
  std::vector<FactorLeaf> leaves;
};
FactorReading read_over_factors(const ZCart& tree, const ZCartAttributes& attributes,
                                std::size_t max_samples = 4096);

// [{split, samples, to_left, left, right, surrogate, agree}]; a side that is no box over the factors
// is null, as is a missing surrogate.
nlohmann::json factor_splits_json(const std::vector<FactorSplit>& splits);
// [{rule, correction, cap, samples, box}]; a leaf that is no box has box null.
nlohmann::json factor_leaves_json(const std::vector<FactorLeaf>& leaves);

}  // namespace wb
