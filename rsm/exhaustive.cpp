// The exact D-optimum by enumeration, the yardstick for fedorov() in tests and the benchmark.
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "rsm/design.hpp"

namespace wb {

namespace {

using Index = Eigen::Index;

// A pivot below this fraction of its diagonal entry means the subset is (numerically) singular.
constexpr double kSingularPivot = 1e-12;
// Same tie rule as fedorov(): a later subset must beat the best by this much in log det.
constexpr double kMinSubsetGain = 1e-10;

// log det of the symmetric k x k matrix in `a` (row-major, overwritten with its Cholesky factor
// in the lower triangle); -infinity if it is not numerically positive definite.
double cholesky_log_det(std::vector<double>& a, Index k) {
  const auto at = [&a, k](Index i, Index j) -> double& { return a[static_cast<std::size_t>(i * k + j)]; };
  double log_det = 0;
  for (Index j = 0; j < k; ++j) {
    double pivot = at(j, j);
    for (Index p = 0; p < j; ++p) pivot -= at(j, p) * at(j, p);
    if (!(pivot > kSingularPivot * at(j, j))) return -std::numeric_limits<double>::infinity();
    const double l = std::sqrt(pivot);
    at(j, j) = l;
    log_det += 2.0 * std::log(l);
    for (Index i = j + 1; i < k; ++i) {
      double s = at(i, j);
      for (Index p = 0; p < j; ++p) s -= at(i, p) * at(j, p);
      at(i, j) = s / l;
    }
  }
  return log_det;
}

// Depth-first enumeration of subsets of `pool`, carrying Z'Z of the points chosen so far, so each
// leaf costs one k x k Cholesky rather than a product of the whole model matrix.
class Enumerator {
 public:
  Enumerator(const Eigen::MatrixXd& f, std::vector<Index> pool, std::size_t choose)
      : k_(f.cols()),
        pool_(std::move(pool)),
        choose_(choose),
        grams_(choose + 1, std::vector<double>(static_cast<std::size_t>(k_ * k_), 0.0)),
        outer_(pool_.size(), std::vector<double>(static_cast<std::size_t>(k_ * k_))),
        scratch_(static_cast<std::size_t>(k_ * k_)),
        chosen_(choose) {
    for (std::size_t c = 0; c < pool_.size(); ++c) {
      for (Index i = 0; i < k_; ++i) {
        for (Index j = 0; j < k_; ++j) {
          outer_[c][static_cast<std::size_t>(i * k_ + j)] = f(pool_[c], i) * f(pool_[c], j);
        }
      }
    }
  }

  // Z'Z of the points every subset contains.
  void set_base(const std::vector<double>& gram) { grams_[0] = gram; }

  // The best subset (indices into the candidates) and its log det(Z'Z).
  std::pair<std::vector<Index>, double> run() {
    best_log_det_ = -std::numeric_limits<double>::infinity();
    best_.clear();
    visit(0, 0);
    return {best_, best_log_det_};
  }

 private:
  void visit(std::size_t depth, std::size_t from) {
    if (depth == choose_) {
      scratch_ = grams_[depth];
      const double log_det = cholesky_log_det(scratch_, k_);
      if (log_det > best_log_det_ + kMinSubsetGain || (best_.empty() && std::isfinite(log_det))) {
        best_log_det_ = log_det;
        best_.clear();
        for (std::size_t c : chosen_) best_.push_back(pool_[c]);
      }
      return;
    }
    // Leave room for the points still to choose after this one.
    for (std::size_t c = from; c + (choose_ - depth) <= pool_.size(); ++c) {
      const auto& prev = grams_[depth];
      auto& next = grams_[depth + 1];
      for (std::size_t e = 0; e < next.size(); ++e) next[e] = prev[e] + outer_[c][e];
      chosen_[depth] = c;
      visit(depth + 1, c + 1);
    }
  }

  Index k_;
  std::vector<Index> pool_;
  std::size_t choose_;
  std::vector<std::vector<double>> grams_;  // grams_[d]: Z'Z after choosing d free points
  std::vector<std::vector<double>> outer_;  // x x' of every pool point
  std::vector<double> scratch_;
  std::vector<std::size_t> chosen_;  // positions in pool_ of the points chosen so far
  std::vector<Index> best_;
  double best_log_det_ = -std::numeric_limits<double>::infinity();
};

}  // namespace

Design exhaustive(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms, int n_points,
                  const std::vector<Index>& required, std::uint64_t max_subsets) {
  const Eigen::MatrixXd f = detail::checked_candidate_matrix(candidates, terms, n_points, required);
  std::vector<Index> pool = detail::free_rows(f.rows(), required);
  const std::size_t choose = static_cast<std::size_t>(n_points) - required.size();
  const std::uint64_t subsets = count_subsets(pool.size(), choose);
  if (subsets > max_subsets) {
    throw InputError(
        fmt::format("exhaustive design: {} subsets exceed the limit of {}", subsets, max_subsets));
  }

  const Index k = f.cols();
  std::vector<double> base(static_cast<std::size_t>(k * k), 0.0);
  for (Index r : required) {
    for (Index i = 0; i < k; ++i) {
      for (Index j = 0; j < k; ++j) {
        base[static_cast<std::size_t>(i * k + j)] += f(r, i) * f(r, j);
      }
    }
  }
  Enumerator enumerator(f, std::move(pool), choose);
  enumerator.set_base(base);
  auto [chosen, log_det] = enumerator.run();
  if (!std::isfinite(log_det)) {
    throw InputError(
        fmt::format("exhaustive design: no {}-point design with the {} required "
                    "points can estimate all {} terms",
                    n_points, required.size(), k));
  }
  std::vector<Index> points = required;
  points.insert(points.end(), chosen.begin(), chosen.end());
  return evaluate_design(candidates, terms, points);
}

}  // namespace wb
