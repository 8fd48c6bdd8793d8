#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.hpp"
#include "models/mva.hpp"
#include "models/operational_laws.hpp"

// [001 §III-C eq. 1, 2; 000 eq. 3]. The bounds must hold for the exact solution of any
// product-form network, and meet it at both ends (N = 1 and N → ∞).

namespace {

std::vector<wb::ClosedCenter> centers() {
  return {{"cpu", 2.0, 1, wb::ClosedCenterKind::kQueue},
          {"disk_a", 3.0, 1, wb::ClosedCenterKind::kQueue},
          {"disk_b", 1.0, 1, wb::ClosedCenterKind::kQueue},
          {"net", 0.5, 1, wb::ClosedCenterKind::kDelay}};
}

}  // namespace

TEST_CASE("bottleneck bounds name the bottleneck and the knee N*") {
  auto b = wb::bottleneck_bounds(centers(), 4.0);
  CHECK(b.total_demand == Approx(6.5));
  CHECK(b.max_demand == Approx(3.0));
  CHECK(b.bottleneck == "disk_a");
  CHECK(b.max_throughput == Approx(1.0 / 3.0));
  CHECK(b.knee == Approx((6.5 + 4.0) / 3.0));  // N* = (D + Z)/D_max
  CHECK(wb::throughput_bound(b, 1) == Approx(1.0 / 10.5));
  CHECK(wb::throughput_bound(b, 100) == Approx(1.0 / 3.0));
  CHECK(wb::response_bound(b, 1) == Approx(6.5));
  CHECK(wb::response_bound(b, 100) == Approx(296.0));
}

TEST_CASE("exact MVA respects the operational bounds at every population") {
  auto c = centers();
  auto b = wb::bottleneck_bounds(c, 4.0);
  auto all = wb::mva_exact_all(c, 80, 4.0);
  for (const auto& r : all) {
    INFO("N = " << r.population);
    CHECK(r.throughput <= wb::throughput_bound(b, r.population) * (1 + 1e-12));
    CHECK(r.response >= wb::response_bound(b, r.population) * (1 - 1e-12));
    // R = N/X − Z is an identity of any closed solution [001 eq. 2].
    CHECK(wb::response_time_law(r.population, r.throughput, 4.0) == Approx(r.response).epsilon(1e-12));
    CHECK(r.centers[1].utilization == Approx(wb::utilization_law(r.throughput, c[1])));
  }
  CHECK(all.front().throughput == Approx(wb::throughput_bound(b, 1)));  // N = 1: no queueing
  CHECK(all.back().throughput == Approx(b.max_throughput).epsilon(1e-3));
}

TEST_CASE("multi-server centers limit throughput by demand per server") {
  std::vector<wb::ClosedCenter> c{{"disks", 8.0, 4, wb::ClosedCenterKind::kQueue},
                                  {"cpu", 1.5, 1, wb::ClosedCenterKind::kQueue}};
  auto b = wb::bottleneck_bounds(c, 0.0);
  CHECK(b.bottleneck == "disks");
  CHECK(b.max_demand == Approx(2.0));
  CHECK(b.max_throughput == Approx(0.5));
}

TEST_CASE("operational laws reject nonsense") {
  CHECK_THROWS_AS(wb::response_time_law(3, 0.0, 1.0), wb::Error);
  auto b = wb::bottleneck_bounds(centers(), 4.0);
  CHECK_THROWS_AS(wb::throughput_bound(b, -1), wb::Error);
  auto none = wb::bottleneck_bounds({{"net", 1.0, 1, wb::ClosedCenterKind::kDelay}}, 1.0);
  CHECK(std::isinf(none.max_throughput));
  CHECK(wb::throughput_bound(none, 4) == Approx(2.0));
}

TEST_CASE("the service demand law D = U/X and the forced flow law on known numbers") {
  // The motivating problem of Menascé, Almeida & Dowdy 2004, §3.2: over one minute a CPU is busy
  // 36 s and 1800 transactions complete, so U = 0.6, X = 30/s and D = U/X = 0.02 s.
  CHECK(wb::service_demand_law(36.0 / 60.0, 1800.0 / 60.0) == Approx(0.02).epsilon(1e-12));
  // Two disks busy 3.0 s and 2.4 s in 10 s: U = 0.54 summed over the pair. 120 requests made 90
  // disk operations: V = 0.75 per request, D = 0.045 s per request, S = D/V = 0.06 s per operation
  // (the utilization law from the disks' own side: 5.4 s busy over 90 operations).
  double u = (3.0 + 2.4) / 10.0, x = 120 / 10.0, x_disk = 90 / 10.0;
  double d = wb::service_demand_law(u, x), v = wb::forced_flow_visits(x_disk, x);
  CHECK(d == Approx(0.045).epsilon(1e-12));
  CHECK(v == Approx(0.75).epsilon(1e-12));
  CHECK(d / v == Approx(5.4 / 90).epsilon(1e-12));
  // It inverts the utilization law of any center.
  wb::ClosedCenter c{"disk", 0.045, 2, wb::ClosedCenterKind::kQueue};
  CHECK(wb::service_demand_law(wb::utilization_law(x, c) * c.servers, x) == Approx(c.demand).epsilon(1e-12));
  // An idle center has no demand; a system that completed nothing gives no answer.
  CHECK(wb::service_demand_law(0.0, 5.0) == 0);
  CHECK_THROWS_AS(wb::service_demand_law(0.5, 0.0), wb::Error);
  CHECK_THROWS_AS(wb::service_demand_law(-0.1, 5.0), wb::Error);
  CHECK_THROWS_AS(wb::service_demand_law(std::nan(""), 5.0), wb::Error);
  CHECK_THROWS_AS(wb::forced_flow_visits(3.0, 0.0), wb::Error);
  CHECK_THROWS_AS(wb::forced_flow_visits(-1.0, 2.0), wb::Error);
}
