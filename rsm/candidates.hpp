#pragma once
// The candidate set of a design [003 §4, §5.3.2]: by default the full factorial of the declared
// numeric levels (4 disks x 8 thread counts: the 32 samples of §5.3.2), or points the user lists. One
// Eigen row per point, one column per factor, natural units; designs name rows by index. Thread-safe.
#include <vector>

#include <Eigen/Dense>

namespace wb {

// Every combination of levels[0] x levels[1] x ... as rows, the FIRST factor fastest (as R's
// expand.grid): {{1,2},{10,20}} gives (1,10) (2,10) (1,20) (2,20). InputError if there are no factors,
// a factor has no levels, or a factor repeats a level.
Eigen::MatrixXd full_factorial(const std::vector<std::vector<double>>& levels);

// `base` followed by those rows of `extra` that are not already present (exact comparison),
// in order. Either may be empty (zero rows); InputError if both have rows and their column
// counts differ.
Eigen::MatrixXd append_candidates(const Eigen::MatrixXd& base, const Eigen::MatrixXd& extra);

// Row index of `point` in `candidates` (exact comparison), or -1.
Eigen::Index find_candidate(const Eigen::Ref<const Eigen::MatrixXd>& candidates,
                            const Eigen::RowVectorXd& point);

}  // namespace wb
