#pragma once
// The attribute schema the Z-CART tests share: two numeric factors and a categorical one.
#include <vector>

#include "models/zcart.hpp"

namespace wb::test {

inline std::vector<Attribute> schema3() {
  return {{"threads", AttributeKind::kNumeric, {}},
          {"disks", AttributeKind::kNumeric, {}},
          {"switch", AttributeKind::kCategorical, {"vendorA", "vendorB", "vendorC"}}};
}

}  // namespace wb::test
