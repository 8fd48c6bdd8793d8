#pragma once
// The Z-CART answer of `workbench whatif` [000 §3.3.1; issue 7.4]: the expectation model's λ*
// corrected by a zero-training regression tree (models/zcart.hpp) over the testbed's factors,
// trained on the stored searches whose measured λ* sits next to a stored expectation. With nothing
// measured the tree is one leaf with correction 1: it answers the expectation itself.
#include <optional>
#include <string>
#include <vector>

#include "controller/expectation_record.hpp"
#include "core/config.hpp"

namespace wb {

struct ZCartAnswer {
  double value = 0;                 // expected λ* × the leaf's learned correction
  std::optional<double> low, high;  // value ± 2 × the leaf's spread (n >= 2)
  std::optional<double> fidelity;   // the leaf's observations predicted within tolerance; nullopt if n = 0
  int n = 0;                        // observations in the leaf
  std::string rule;                 // the leaf's path, e.g. "threads > 8"; "" for the root
};

// Fits the tree to `rows` (found searches with an expectation and a sample every factor of
// `config` has a level in) and predicts for `sample` given its expected λ* (> 0).
ZCartAnswer zcart_answer(const Config& config, const std::vector<MeasuredVsExpected>& rows,
                         const Sample& sample, double expected);

}  // namespace wb
