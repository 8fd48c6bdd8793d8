#pragma once
// D-optimal designs over a finite candidate set [003 §4, §5.3.2]: choose N distinct candidates
// (no repeated points, as AlgDesign's optFederov does by default) that maximise det(Z'Z), where
// Z is the model matrix of the chosen points. The paper picks the best 6, 8 and 10 of the 32
// disks x nfsds samples this way for a quadratic surface (Table 4).
//
// Figures reported for a design with N points and k model terms, M = Z'Z / N:
//   D            = det(M)^(1/k)                           (AlgDesign's "D")
//   G-efficiency = k / max_{x in candidates} x' M^-1 x    (AlgDesign's "Ge"; 1 = 100%)
//   Dea          = exp(1 - 1/Ge), a lower bound on D-efficiency against the best approximate
//                  design (Atwood 1969; AlgDesign's "Dea")
// D depends on the units of the factors (coded or raw). Which subset is D-optimal does not change
// under a linear coding when the model is closed under affine changes of each factor (all three
// ModelKinds are), but it does change under log coding.
//
// Candidates are rows of an Eigen::MatrixXd (see candidates.hpp); designs name them by row index.
// All functions are pure and deterministic for a given seed (std::mt19937_64, with one standard
// library: its uniform_int_distribution is implementation-defined); safe from any
// thread. Errors are InputErrors naming the violated requirement.
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
  double g_efficiency = 0;        // in (0, 1]; 0 if singular
  double d_efficiency_bound = 0;  // exp(1 - 1/Ge); 0 if singular
};

// The figures above for the given points (repeats allowed here). InputError if a point index is
// outside the candidate set or there are no points.
Design evaluate_design(const Eigen::MatrixXd& candidates, const std::vector<Term>& terms,
                       const std::vector<Eigen::Index>& points);

// D-optimal N-point design by Fedorov's exchange algorithm (Fedorov 1972; AlgDesign optFederov):
// from each of `starts` random nonsingular N-subsets that contain all `required` points, make the
// single exchange (design point out, candidate in) that raises det(Z'Z) the most, until no
// exchange raises it by more than a relative 1e-10; keep the best design over all starts.
// Required points are never exchanged out; this is how a measured design is augmented.
//
// Requires: k = terms.size() <= n_points <= candidates.rows(); starts >= 1; required indices
// distinct and in range, required.size() <= n_points; the candidate model matrix has rank k (else
// the model is not estimable on these candidates, e.g. a square term of a two-level factor).
// Exchange finds a local optimum per start; many starts make the global one likely, not certain.
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
}  // namespace detail

}  // namespace wb
