#include "rsm/candidates.hpp"

#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

Eigen::MatrixXd full_factorial(const std::vector<std::vector<double>>& levels) {
  if (levels.empty()) throw InputError("full factorial: no factors");
  Eigen::Index rows = 1;
  for (std::size_t j = 0; j < levels.size(); ++j) {
    if (levels[j].empty()) throw InputError(fmt::format("full factorial: factor {} has no levels", j));
    if (std::set<double>(levels[j].begin(), levels[j].end()).size() != levels[j].size()) {
      throw InputError(fmt::format("full factorial: factor {} repeats a level", j));
    }
    rows *= static_cast<Eigen::Index>(levels[j].size());
  }
  const auto cols = static_cast<Eigen::Index>(levels.size());
  Eigen::MatrixXd out(rows, cols);
  // Mixed-radix counter with digit 0 (the first factor) least significant.
  for (Eigen::Index r = 0; r < rows; ++r) {
    Eigen::Index rest = r;
    for (Eigen::Index j = 0; j < cols; ++j) {
      const auto& lv = levels[static_cast<std::size_t>(j)];
      const auto n = static_cast<Eigen::Index>(lv.size());
      out(r, j) = lv[static_cast<std::size_t>(rest % n)];
      rest /= n;
    }
  }
  return out;
}

Eigen::Index find_candidate(const Eigen::Ref<const Eigen::MatrixXd>& candidates,
                            const Eigen::RowVectorXd& point) {
  if (point.size() != candidates.cols()) return -1;
  for (Eigen::Index i = 0; i < candidates.rows(); ++i) {
    if (candidates.row(i) == point) return i;
  }
  return -1;
}

Eigen::MatrixXd append_candidates(const Eigen::MatrixXd& base, const Eigen::MatrixXd& extra) {
  if (extra.rows() == 0) return base;
  if (base.rows() > 0 && base.cols() != extra.cols()) {
    throw InputError(
        fmt::format("candidates: listed points have {} factors, the grid has {}", extra.cols(), base.cols()));
  }
  Eigen::MatrixXd out(base.rows() + extra.rows(), extra.cols());
  Eigen::Index n = base.rows();
  if (n > 0) out.topRows(n) = base;
  for (Eigen::Index i = 0; i < extra.rows(); ++i) {
    // Linear scan: candidate sets are tens to thousands of points.
    if (find_candidate(out.topRows(n), extra.row(i)) < 0) out.row(n++) = extra.row(i);
  }
  out.conservativeResize(n, Eigen::NoChange);
  return out;
}

}  // namespace wb
