#pragma once
// D-optimal designs over a finite candidate set [003 §4, §5.3.2, Table 4]: N distinct candidates
// maximizing det(Z'Z), Z the chosen points' model matrix, with AlgDesign's figures
// (docs/decisions.md#rsm-design). Pure; deterministic per seed with one standard library
// (std::mt19937_64 with its uniform_int_distribution); thread-safe. InputErrors name the requirement.
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "rsm/model_terms.hpp"

namespace wb {

struct Design {
  // Row indices into the candidate set: required points first (in the order given), then the
  // chosen ones in ascending order.
  std::vector<Eigen::Index> points;
  double log_det = 0;             // log det(Z'Z / N); -infinity if Z does not have full column rank
  double d = 0;                   // D = det(Z'Z / N)^(1/k); 0 if singular
  double g_efficiency = 0;        // k / max over candidates of x'M^-1 x, M = Z'Z/N; 0 if singular
  double d_efficiency_bound = 0;  // exp(1 - 1/Ge) <= D-efficiency (Atwood 1969); 0 if singular
};

// The figures above for the given points (repeats allowed here). InputError if a point index is
// outside the candidate set or there are no points.
Design evaluate_design(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms,
                       const std::vector<Eigen::Index>& points);

// D-optimal N-point design by Fedorov's exchange (Fedorov 1972; AlgDesign optFederov): from each of
// `starts` random nonsingular N-subsets holding all `required` points (never exchanged out), make the
// best single exchange until none raises det(Z'Z) by a relative 1e-10; keep the best start's design.
// Requires: k = terms.size() <= n_points <= candidates.rows(); starts >= 1; required distinct, in
// range, at most n_points; the candidate model matrix of rank k. A local optimum per start.
Design fedorov(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms, int n_points, int starts,
               std::uint64_t seed, const std::vector<Eigen::Index>& required = {});

// Sequential augmentation: the `add` candidates that, together with the already `measured`
// points, make the best (n + add)-point design; fedorov() with `measured` required. The measured
// points may themselves be a singular design (fewer than k points) as long as the total is >= k.
Design augment(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms,
               const std::vector<Eigen::Index>& measured, int add, int starts, std::uint64_t seed);

// The true D-optimum by enumerating every N-subset containing `required` (for tests and the
// benchmark). Ties go to the first subset in lexicographic order. Same requirements as fedorov();
// InputError also if there are more than max_subsets subsets to enumerate.
Design exhaustive(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms, int n_points,
                  const std::vector<Eigen::Index>& required = {}, std::uint64_t max_subsets = 100'000'000);

// C(n, k), saturating at UINT64_MAX.
std::uint64_t count_subsets(std::uint64_t n, std::uint64_t k);

namespace detail {
// Checks the requirements shared by fedorov() and exhaustive() (see there) and returns the
// candidate model matrix F (one row per candidate).
Eigen::MatrixXd checked_candidate_matrix(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms,
                                         int n_points, const std::vector<Eigen::Index>& required);
// The candidate rows 0..n_rows-1 that are not in `required`, in increasing order: the pool that
// fedorov() and exhaustive() choose the free points from.
std::vector<Eigen::Index> free_rows(Eigen::Index n_rows, const std::vector<Eigen::Index>& required);
}  // namespace detail

}  // namespace wb
