#include <catch2/catch.hpp>

#include <cmath>

#include "ctmc.hpp"
#include "models/convolution.hpp"
#include "models/mva.hpp"
#include "tests/models/printed_values.hpp"

// Textbook: R. Jain, The Art of Computer Systems Performance Analysis, Wiley 1991, Example 35.5
// (Ch. 35, the convolution algorithm) and its Table 35.5: demands CPU 0.78 s, disk A 2.34 s, disk B
// 1.56 s, think time 4.68 s, N = 3. Printed: X = 0.264, U = 0.206 / 0.618 / 0.412, R = 6.694,
// P(k jobs at disk A) = 0.383 (k=0), 0.211 (k=2), 0.070 (k=3), mean 0.97, and the state
// probabilities of Table 35.5. Checked against a copy of the example's text; page not confirmed.

namespace {

using wb::test::matches_printed;

std::vector<wb::ClosedCenter> jain_35_5() {
  return {{"cpu", 0.78, 1, wb::ClosedCenterKind::kQueue},
          {"disk_a", 2.34, 1, wb::ClosedCenterKind::kQueue},
          {"disk_b", 1.56, 1, wb::ClosedCenterKind::kQueue}};
}

}  // namespace

TEST_CASE("convolution and exact MVA reproduce Jain 1991 Example 35.5") {
  for (const auto& r : {wb::solve_convolution(jain_35_5(), 3, 4.68), wb::mva_exact(jain_35_5(), 3, 4.68)}) {
    CHECK(matches_printed(r.throughput, 0.264, 3));
    CHECK(matches_printed(r.response, 6.694, 3));
    // The book computes U = X·D from the rounded X = 0.264 (exact X = 0.26376), so its U carry
    // that rounding: reproduce its arithmetic, and check our U against the utilization law.
    double x_printed = std::round(r.throughput * 1000) / 1000;
    const double demand[] = {0.78, 2.34, 1.56}, printed_u[] = {0.206, 0.618, 0.412};
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(matches_printed(x_printed * demand[k], printed_u[k], 3));
      CHECK(r.centers[k].utilization == Approx(r.throughput * demand[k]).epsilon(1e-12));
    }
    CHECK(matches_printed(r.centers[1].queue_length, 0.97, 2));
  }
}

TEST_CASE("the brute-force Markov chain reproduces Jain 1991 Table 35.5 state probabilities") {
  // Stations in cyclic order: terminals (delay), CPU, disk A, disk B; the service time per visit
  // equals the demand (product-form means depend only on demands).
  auto pi = wb::test::closed_cyclic({4.68, 0.78, 2.34, 1.56}, {0, 1, 1, 1}, 3);
  struct Row {
    std::vector<int> state;
    double p;
  };
  const Row rows[] = {
      {{0, 0, 0, 3}, 0.021}, {{0, 0, 1, 2}, 0.031}, {{0, 0, 2, 1}, 0.047}, {{0, 0, 3, 0}, 0.070},
      {{0, 1, 0, 2}, 0.010}, {{0, 1, 1, 1}, 0.016}, {{0, 1, 2, 0}, 0.023}, {{0, 2, 0, 1}, 0.005},
      {{0, 2, 1, 0}, 0.008}, {{0, 3, 0, 0}, 0.003}, {{1, 0, 0, 2}, 0.063}, {{1, 0, 1, 1}, 0.094},
      {{1, 0, 2, 0}, 0.141}, {{1, 1, 0, 1}, 0.031}, {{1, 1, 1, 0}, 0.047}, {{1, 2, 0, 0}, 0.016},
      {{2, 0, 0, 1}, 0.094}, {{2, 0, 1, 0}, 0.141}, {{2, 1, 0, 0}, 0.047}, {{3, 0, 0, 0}, 0.094}};
  REQUIRE(pi.size() == 20);
  for (const auto& row : rows) {
    INFO("state " << row.state[0] << row.state[1] << row.state[2] << row.state[3]
                  << " p = " << pi.at(row.state));
    CHECK(matches_printed(pi.at(row.state), row.p, 3));
  }
  double p_a[4] = {0, 0, 0, 0};
  for (const auto& [s, p] : pi) p_a[s[2]] += p;
  CHECK(matches_printed(p_a[0], 0.383, 3));
  CHECK(matches_printed(p_a[2], 0.211, 3));
  CHECK(matches_printed(p_a[3], 0.070, 3));
}

TEST_CASE("convolution with multi-server and delay centers matches the Markov chain exactly") {
  // Think 5, a 3-server disk of demand 12, a 2-server CPU of demand 2, a delay of 1; N = 6.
  std::vector<wb::ClosedCenter> c{{"disk", 12.0, 3, wb::ClosedCenterKind::kQueue},
                                  {"cpu", 2.0, 2, wb::ClosedCenterKind::kQueue},
                                  {"net", 1.0, 1, wb::ClosedCenterKind::kDelay}};
  const int n = 6;
  auto pi = wb::test::closed_cyclic({5.0, 12.0, 2.0, 1.0}, {0, 3, 2, 0}, n);
  double q[4] = {0, 0, 0, 0}, think_busy = 0;
  for (const auto& [s, p] : pi) {
    for (int k = 0; k < 4; ++k) q[k] += s[static_cast<std::size_t>(k)] * p;
    think_busy += s[0] * p;
  }
  double x = think_busy / 5.0;  // departures from the think stage
  auto r = wb::solve_convolution(c, n, 5.0);
  CHECK(r.throughput == Approx(x).epsilon(1e-10));
  for (int k = 0; k < 3; ++k)
    CHECK(r.centers[static_cast<std::size_t>(k)].queue_length == Approx(q[k + 1]).epsilon(1e-9));
  CHECK(n == Approx(r.throughput * (r.response + 5.0)).epsilon(1e-12));
  // Exact MVA agrees wherever it is exact: single-server and delay centers only.
  std::vector<wb::ClosedCenter> single{{"disk", 12.0, 1, wb::ClosedCenterKind::kQueue},
                                       {"net", 1.0, 1, wb::ClosedCenterKind::kDelay}};
  for (int m : {1, 4, 30}) {
    CHECK(wb::solve_convolution(single, m, 5.0).throughput ==
          Approx(wb::mva_exact(single, m, 5.0).throughput).epsilon(1e-10));
  }
}

TEST_CASE("the population curve stays finite for large populations and server counts") {
  std::vector<wb::ClosedCenter> c{{"disks", 8.0, 64, wb::ClosedCenterKind::kQueue},
                                  {"cpu", 0.1, 1, wb::ClosedCenterKind::kQueue},
                                  {"net", 0.5, 1, wb::ClosedCenterKind::kDelay}};
  auto curve = wb::population_curve(c, 2000);
  REQUIRE(curve.throughput.size() == 2001);
  for (std::size_t n = 1; n < curve.throughput.size(); ++n) {
    REQUIRE(std::isfinite(curve.throughput[n]));
    REQUIRE(curve.throughput[n] >= curve.throughput[n - 1] - 1e-12);  // X(n) never falls
  }
  CHECK(curve.throughput.back() == Approx(8.0).epsilon(1e-6));  // min(64/8, 1/0.1) = 8
  double total = curve.queue[0][2000] + curve.queue[1][2000] + curve.queue[2][2000];
  CHECK(total == Approx(2000).epsilon(1e-9));
}

TEST_CASE("convolution reproduces Bolch et al. 1998, Example 8.4 (p. 333): a two-server center") {
  // G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, Queueing Networks and Markov Chains, Wiley
  // 1998, Example 8.4, p. 333 as cited by the test of qncsmva in the Octave queueing package
  // (github.com/mmarzolla/queueing, inst/qncsmva.m), where the inputs and printed results were
  // read: S = 0.5, 0.6, 0.8, 1 s; V = 1, 0.5, 0.5, 1; center 1 has two servers, center 4 is a
  // delay (infinite server); three jobs, no think time. Printed to three decimals: mean number of
  // jobs 0.624, 0.473, 0.686, 1.217 and throughputs 1.218, 0.609, 0.609, 1.218.
  // The multi-server center needs the exact load-dependent solution (exact MVA's Seidmann
  // approximation does not reproduce it), so this is a test of the convolution algorithm.
  const std::vector<wb::ClosedCenter> centers{{"c1", 0.5 * 1, 2, wb::ClosedCenterKind::kQueue},
                                              {"c2", 0.6 * 0.5, 1, wb::ClosedCenterKind::kQueue},
                                              {"c3", 0.8 * 0.5, 1, wb::ClosedCenterKind::kQueue},
                                              {"c4", 1.0 * 1, 1, wb::ClosedCenterKind::kDelay}};
  const double v[] = {1, 0.5, 0.5, 1};
  auto r = wb::solve_convolution(centers, 3, 0.0);
  const double printed_q[] = {0.624, 0.473, 0.686, 1.217};
  for (std::size_t k = 0; k < 4; ++k) {
    INFO("center " << k + 1);
    CHECK(matches_printed(r.centers[k].queue_length, printed_q[k], 3));
  }
  CHECK(matches_printed(r.throughput * v[1], 0.609, 3));
  CHECK(matches_printed(r.throughput * v[2], 0.609, 3));
  // The printed throughput of centers 1 and 4, 1.218, disagrees with the printed queue length of
  // the delay center 4, 1.217: there Q = X·S with S = 1 s, so both are the same number. The exact
  // value is 1.21746 (an enumeration of the 20 states gives it too); the book's 1.218 carries a
  // rounding of its own, so X is checked against it to the unit of the last digit, not half.
  CHECK(r.centers[3].queue_length == Approx(r.throughput * 1.0).epsilon(1e-12));
  CHECK(r.throughput == Approx(1.218).margin(0.001));
}

TEST_CASE("convolution reproduces Bolch et al. 1998, Example 8.1 (p. 318): two- and three-server centers") {
  // Bolch, Greiner, de Meer, Trivedi 1998, Example 8.1, p. 318 as cited by the test of qncsconv in
  // the Octave queueing package (github.com/mmarzolla/queueing, inst/qncsconv.m), where the inputs
  // and printed results were read: service rates 0.8, 0.6, 0.4/s (S = 1.25, 1.667, 2.5 s) at
  // centers of 2, 3 and 1 servers, visit ratios 1, 0.667, 0.2, three jobs. Printed to three
  // decimals: X = 0.945, 0.630, 0.189; U = 0.590, 0.350, 0.473; Q = 1.290, 1.050, 0.660;
  // R = 1.366, 1.667, 3.496 (per visit). The printed figures follow from the visit ratio 2/3 that
  // 0.667 rounds (with 0.667 itself X_1 would be 0.944).
  const double s[] = {1 / 0.8, 1 / 0.6, 1 / 0.4}, v[] = {1, 2.0 / 3.0, 0.2};
  const int m[] = {2, 3, 1};
  std::vector<wb::ClosedCenter> centers;
  for (std::size_t k = 0; k < 3; ++k)
    centers.push_back({"c" + std::to_string(k + 1), s[k] * v[k], m[k], wb::ClosedCenterKind::kQueue});
  auto r = wb::solve_convolution(centers, 3, 0.0);
  const double printed_x[] = {0.945, 0.630, 0.189}, printed_u[] = {0.590, 0.350, 0.473},
               printed_q[] = {1.290, 1.050, 0.660}, printed_r[] = {1.366, 1.667, 3.496};
  for (std::size_t k = 0; k < 3; ++k) {
    INFO("center " << k + 1);
    CHECK(matches_printed(r.throughput * v[k], printed_x[k], 3));
    CHECK(matches_printed(r.centers[k].queue_length, printed_q[k], 3));
    CHECK(matches_printed(r.centers[k].residence / v[k], printed_r[k], 3));
    // U = 0.590 and 0.350 are the exact values rounded; U_3 = 0.473 is not (exact 0.18891 × 2.5 =
    // 0.47228). It would follow from the rounded X_3 (0.189 × 2.5 = 0.4725), but U_1 does not
    // follow that way (0.945 × 1.25 / 2 = 0.591): the book rounds inconsistently, so U_3 is
    // checked to one unit of its last digit.
    CHECK(r.centers[k].utilization == Approx(printed_u[k]).margin(k == 2 ? 0.001 : 0.0005));
    CHECK(r.centers[k].utilization == Approx(r.throughput * v[k] * s[k] / m[k]).epsilon(1e-12));
  }
}
