#pragma once
// What the Z-CART tests share: the model's names, used unqualified, and an attribute schema of two
// numeric factors and a categorical one.
#include <vector>

#include "models/zcart.hpp"

namespace wb::test {

inline std::vector<Attribute> schema3() {
  return {{"threads", AttributeKind::kNumeric, {}},
          {"disks", AttributeKind::kNumeric, {}},
          {"switch", AttributeKind::kCategorical, {"vendorA", "vendorB", "vendorC"}}};
}

}  // namespace wb::test

// Listed once for the target's files, which its unity build compiles as one unit anyway.
using wb::Attribute;
using wb::AttributeKind;
using wb::Observation;
using wb::SplitCriterion;
using wb::ZCart;
using wb::ZCartOptions;
