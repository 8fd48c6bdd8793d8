#pragma once
// Test helper: the factor levels of configs/sim.toml, the surface of [003 Fig. 2].
#include <vector>

namespace wb::test {

inline const std::vector<double> kDisks{1, 2, 3, 4};
inline const std::vector<double> kThreads{1, 2, 4, 8, 16, 32, 64, 100};

}  // namespace wb::test
