// [003 §4, §5.3.2] D-optimal sample selection by Fedorov's exchange algorithm, with random
// starts as in R's AlgDesign optFederov (which is the peer the benchmark names).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "core/error.hpp"
#include "rsm/design.hpp"
#include "rsm/information_matrix.hpp"

namespace wb {

namespace {

// An exchange must raise det(Z'Z) by more than this relative amount; below it, rounding noise
// could make the algorithm cycle between designs of equal determinant.
constexpr double kMinGain = 1e-10;
// Exchanges strictly raise the determinant over a finite set, so the loop ends; the cap only
// guards against a pathological numerical case.
constexpr int kMaxExchanges = 100000;
// Random subsets tried before falling back to building a nonsingular start point by point.
constexpr int kRandomStartTries = 20;

using Index = Eigen::Index;

Eigen::MatrixXd rows_of(const Eigen::MatrixXd& f, const std::vector<Index>& points) {
  Eigen::MatrixXd z(static_cast<Index>(points.size()), f.cols());
  for (std::size_t i = 0; i < points.size(); ++i) z.row(static_cast<Index>(i)) = f.row(points[i]);
  return z;
}

bool nonsingular(const Eigen::MatrixXd& f, const std::vector<Index>& points) {
  return static_cast<Index>(points.size()) >= f.cols() && column_rank(rows_of(f, points)) == f.cols();
}

// A random N-subset containing `required`, with full column rank. Uniform random subsets first;
// if those keep being singular (a candidate set with many degenerate subsets), the free points
// are taken in random order, keeping at first only those that raise the rank.
std::vector<Index> random_start(const Eigen::MatrixXd& f, const std::vector<Index>& required,
                                std::vector<Index> pool, int n_points, std::mt19937_64& rng) {
  const std::size_t free_slots = static_cast<std::size_t>(n_points) - required.size();
  for (int attempt = 0; attempt < kRandomStartTries; ++attempt) {
    // Partial Fisher-Yates: the first free_slots entries of pool become a uniform random subset.
    for (std::size_t i = 0; i < free_slots; ++i) {
      std::uniform_int_distribution<std::size_t> pick(i, pool.size() - 1);
      std::swap(pool[i], pool[pick(rng)]);
    }
    std::vector<Index> points = required;
    points.insert(points.end(), pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(free_slots));
    if (nonsingular(f, points)) return points;
  }

  std::shuffle(pool.begin(), pool.end(), rng);
  std::vector<Index> points = required;
  std::vector<Index> skipped;
  Index rank = points.empty() ? 0 : column_rank(rows_of(f, points));
  for (Index p : pool) {
    if (points.size() == static_cast<std::size_t>(n_points) || rank == f.cols()) {
      skipped.push_back(p);
      continue;
    }
    points.push_back(p);
    const Index r = column_rank(rows_of(f, points));
    if (r > rank) {
      rank = r;
    } else {
      points.pop_back();
      skipped.push_back(p);
    }
  }
  for (std::size_t i = 0; points.size() < static_cast<std::size_t>(n_points); ++i) {
    points.push_back(skipped[i]);
  }
  if (!nonsingular(f, points)) {
    throw InputError(
        fmt::format("design: with the {} required points, no {}-point design can estimate all {} terms",
                    required.size(), n_points, f.cols()));
  }
  return points;
}

// Fedorov exchange from `points` (the first n_fixed are never exchanged) until no exchange raises
// det(Z'Z) by more than kMinGain. Returns log det(Z'Z) of the final design.
double exchange(const Eigen::MatrixXd& f, std::vector<Index>& points, std::size_t n_fixed) {
  const Index n = f.rows();
  std::vector<char> in_design(static_cast<std::size_t>(n), 0);
  for (Index p : points) in_design[static_cast<std::size_t>(p)] = 1;

  for (int step = 0; step < kMaxExchanges; ++step) {
    // With W'W = F (Z'Z)^-1 F': d(j) = x_j'(Z'Z)^-1 x_j and d(i,j) = x_i'(Z'Z)^-1 x_j.
    const Eigen::MatrixXd w = whiten_rows(rows_of(f, points), f);
    const Eigen::VectorXd d = w.colwise().squaredNorm().transpose();
    // Replacing design point x_i by candidate x_j multiplies det(Z'Z) by
    //   (1 + d(j)) (1 - d(i)) + d(i,j)^2   (Fedorov's Delta(x_i, x_j) + 1),
    // exactly, by the matrix determinant lemma applied twice.
    double best_ratio = 1.0 + kMinGain;
    std::size_t best_slot = 0;
    Index best_candidate = -1;
    for (std::size_t slot = n_fixed; slot < points.size(); ++slot) {
      const Index i = points[slot];
      for (Index j = 0; j < n; ++j) {
        if (in_design[static_cast<std::size_t>(j)]) continue;
        const double dij = w.col(i).dot(w.col(j));
        const double ratio = (1.0 + d(j)) * (1.0 - d(i)) + dij * dij;
        if (ratio > best_ratio) {
          best_ratio = ratio;
          best_slot = slot;
          best_candidate = j;
        }
      }
    }
    if (best_candidate < 0) break;
    in_design[static_cast<std::size_t>(points[best_slot])] = 0;
    in_design[static_cast<std::size_t>(best_candidate)] = 1;
    points[best_slot] = best_candidate;
  }
  return log_det_gram(rows_of(f, points));
}

}  // namespace

Design fedorov(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms, int n_points, int starts,
               std::uint64_t seed, const std::vector<Index>& required) {
  if (starts < 1) throw InputError(fmt::format("design: {} random starts; need at least 1", starts));
  const Eigen::MatrixXd f = detail::checked_candidate_matrix(candidates, terms, n_points, required);

  const std::vector<Index> pool = detail::free_rows(f.rows(), required);

  std::mt19937_64 rng(seed);
  std::vector<Index> best;
  double best_log_det = -std::numeric_limits<double>::infinity();
  for (int s = 0; s < starts; ++s) {
    std::vector<Index> points = random_start(f, required, pool, n_points, rng);
    const double log_det = exchange(f, points, required.size());
    // The first of equally good designs wins, so the result does not depend on rounding noise.
    if (best.empty() || log_det > best_log_det + kMinGain) {
      best = std::move(points);
      best_log_det = log_det;
    }
    if (required.size() == static_cast<std::size_t>(n_points)) break;  // nothing to choose
  }
  std::sort(best.begin() + static_cast<std::ptrdiff_t>(required.size()), best.end());
  return evaluate_design(candidates, terms, best);
}

}  // namespace wb
