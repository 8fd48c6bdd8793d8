// solve_closed() at scale: populations, server and token counts far beyond what an exact
// product-form sum could visit, solved in bounded time and agreeing with the exact methods and
// the known limits where those apply.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>

#include "core/config.hpp"
#include "core/error.hpp"
#include "models/closed_network.hpp"
#include "models/convolution.hpp"
#include "models/mva.hpp"
#include "tests/models/closed_network_support.hpp"

using namespace wb::test;

TEST_CASE("large populations: pools solved exactly up to 20000 clients, Schweitzer without pools") {
  auto cfg = wb::Config::load(WB_SOURCE_DIR "/configs/sim.toml");
  const wb::QueueNetwork& net = *cfg.model();
  // 100 threads and 20000 clients: the 2 disks (12 ms per request) are the bottleneck.
  auto big = wb::solve_closed(net, cfg.sample("disks=2,threads=100"), wb::kClosedPoolLimit, 0);
  CHECK(big.throughput == Approx(2 / 12.0).epsilon(1e-9));
  CHECK(big.centers[0].utilization == Approx(1).epsilon(1e-9));
  CHECK(wb::kClosedPoolLimit == Approx(big.throughput * big.response).epsilon(1e-9));
  CHECK_THROWS_AS(wb::solve_closed(net, cfg.sample("disks=2,threads=100"), wb::kClosedPoolLimit + 1, 0),
                  wb::InputError);
  CHECK_THROWS_WITH(wb::solve_closed(net, cfg.sample("disks=2,threads=100"), wb::kClosedPoolLimit + 1, 0),
                    Catch::Contains("--clients"));
  CHECK_THROWS_WITH(wb::solve_closed(net, cfg.sample("disks=2,threads=1"), 5, -1),
                    Catch::Contains("--think"));

  wb::QueueNetwork plain;
  plain.centers.push_back(center("cpu", "8", 4.0));
  plain.centers.push_back(center("disk", "1", 0.25));
  auto exact = wb::solve_closed(plain, wb::Sample(), wb::kClosedExactLimit, 100.0);
  CHECK(exact.iterations == 0);
  CHECK(exact.throughput == Approx(2.0).epsilon(1e-9));  // 8 CPUs of 4 ms saturate
  auto approx = wb::solve_closed(plain, wb::Sample(), wb::kClosedExactLimit + 1, 100.0);
  CHECK(approx.iterations > 0);
  CHECK(approx.converged);
  CHECK(approx.throughput == Approx(2.0).epsilon(1e-3));
}

TEST_CASE("many servers and tokens at large populations stay exact: no blow-up from rounding") {
  // A 64-server center at saturation is where the recursion for p(j|n) amplifies rounding most.
  wb::QueueNetwork net;
  net.centers.push_back(center("farm", "64", 640.0));
  net.centers.push_back(center("lb", "1", 0.05));
  std::vector<wb::ClosedCenter> closed{{"farm", 640.0, 64, wb::ClosedCenterKind::kQueue},
                                       {"lb", 0.05, 1, wb::ClosedCenterKind::kQueue}};
  for (int n : {60, 64, 100, 400, 2000}) {
    INFO("N = " << n);
    check_same(wb::solve_closed(net, wb::Sample(), n, 50.0), wb::solve_convolution(closed, n, 50.0), 1e-7);
  }
  // The same farm as a pool of 64 tokens around a 64-server center: tokens never bind.
  wb::QueueNetwork pooled;
  pooled.centers.push_back(pool("threads", "64"));
  pooled.centers.push_back(within(center("farm", "64", 640.0), "threads"));
  pooled.centers.push_back(center("lb", "1", 0.05));
  for (int n : {64, 400, 2000}) {
    INFO("pooled, N = " << n);
    auto r = wb::solve_closed(pooled, wb::Sample(), n, 50.0);
    auto want = wb::solve_convolution(closed, n, 50.0);
    CHECK(r.throughput == Approx(want.throughput).epsilon(1e-7));
    // Waiting for a token plus at the farm inside is the plain farm's queue.
    CHECK(r.centers[0].queue_length + r.centers[1].queue_length ==
          Approx(want.centers[0].queue_length).epsilon(1e-7));
    CHECK(r.centers[2].queue_length == Approx(want.centers[1].queue_length).epsilon(1e-7));
  }
  // Each such center doubles the complement networks: more than 10 are refused, not ground through.
  wb::QueueNetwork farms;
  for (int i = 0; i < 11; ++i) farms.centers.push_back(center("farm" + std::to_string(i), "64", 640.0));
  CHECK_NOTHROW(wb::solve_closed(farms, wb::Sample(), 64, 0));  // 64 servers for 64 clients: delays
  CHECK_THROWS_AS(wb::solve_closed(farms, wb::Sample(), 65, 0), wb::InputError);
}

TEST_CASE("two billion servers and a million clients: bounded time, the known limits") {
  // A center of 2e9 servers is a delay for any population an int can hold; the disk saturates.
  wb::QueueNetwork net;
  net.centers.push_back(center("farm", "2000000000", 1.0));
  net.centers.push_back(center("disk", "1", 5.0));
  for (int n : {1000, 100000, 1000000}) {  // exact MVA, then Schweitzer's
    INFO("N = " << n);
    auto r = wb::solve_closed(net, wb::Sample(), n, 0);
    CHECK(r.converged);
    CHECK(r.throughput == Approx(0.2).epsilon(1e-9));
    CHECK(r.centers[0].residence == Approx(1.0).epsilon(1e-12));  // never waits
    CHECK(r.centers[0].utilization == Approx(0.2 / 2e9).epsilon(1e-9));
    CHECK(r.centers[1].utilization == Approx(1).epsilon(1e-9));
    CHECK(n == Approx(r.throughput * r.response).epsilon(1e-9));
  }
  // MVA itself: c >= N servers make the same network as a delay center, to the last bit.
  std::vector<wb::ClosedCenter> many{{"farm", 3.0, 50, wb::ClosedCenterKind::kQueue},
                                     {"cpu", 1.0, 1, wb::ClosedCenterKind::kQueue}};
  std::vector<wb::ClosedCenter> delay{{"farm", 3.0, 1, wb::ClosedCenterKind::kDelay},
                                      {"cpu", 1.0, 1, wb::ClosedCenterKind::kQueue}};
  for (int n : {1, 20, 50}) {
    INFO("N = " << n);
    CHECK(wb::mva_exact(many, n, 2.0).throughput == wb::mva_exact(delay, n, 2.0).throughput);
    CHECK(wb::mva_schweitzer(many, n, 2.0).throughput == wb::mva_schweitzer(delay, n, 2.0).throughput);
    // And that is the exact multi-server answer.
    CHECK(wb::mva_exact(many, n, 2.0).throughput ==
          Approx(wb::solve_convolution(many, n, 2.0).throughput).epsilon(1e-12));
  }
}

TEST_CASE("many multi-server centers below the population: Schweitzer instead of 2^U complements") {
  // Ten farms of 1000 servers at 2000 clients: the exact recursion would keep 1000 probabilities
  // per farm in 2^10 networks for 2000 populations (2e10 steps). Each farm holds ~200 clients of
  // its 1000 servers, so nearly nobody waits: X ≈ N/ΣD, which Seidmann's split lowers by about
  // the share D/c of each demand that it queues (2e-4 here).
  wb::QueueNetwork net;
  double total = 0;
  for (int i = 0; i < 10; ++i) {
    net.centers.push_back(center("farm" + std::to_string(i), "1000", 1000.0 + i));
    total += 1000.0 + i;
  }
  auto r = wb::solve_closed(net, wb::Sample(), 2000, 0);
  CHECK(r.iterations > 0);
  CHECK(r.converged);
  CHECK(r.throughput <= 2000 / total);
  CHECK(r.throughput == Approx(2000 / total).epsilon(1e-3));
  // Two farms fit the budget and stay exact: every farm within 1e-9 of the convolution.
  wb::QueueNetwork two;
  two.centers.push_back(center("farm0", "1000", 1000.0));
  two.centers.push_back(center("farm1", "1000", 1001.0));
  auto exact = wb::solve_closed(two, wb::Sample(), 2000, 0);
  CHECK(exact.iterations == 0);
  std::vector<wb::ClosedCenter> closed{{"farm0", 1000.0, 1000, wb::ClosedCenterKind::kQueue},
                                       {"farm1", 1001.0, 1000, wb::ClosedCenterKind::kQueue}};
  check_same(exact, wb::solve_convolution(closed, 2000, 0), 1e-9);
}

TEST_CASE("pools with more tokens than the flow-equivalent curve covers, in a closed workload") {
  // configs/sim.toml's network with a pool of 2e9 threads is the network without the pool: 1500
  // clients exceed M = pool_curve_limit(2) populations of the curve, past which the pool completes
  // at X_in(M) — the disks' capacity already, so nothing is lost.
  auto cfg = wb::Config::load(WB_SOURCE_DIR "/configs/sim.toml");
  wb::QueueNetwork unlimited = *cfg.model();
  unlimited.centers[0].servers = wb::Expr::parse("2000000000");
  wb::QueueNetwork plain = *cfg.model();
  plain.centers.erase(plain.centers.begin());
  for (auto& c : plain.centers) c.within.clear();
  const wb::Sample s = cfg.sample("disks=2,threads=16");
  auto r = wb::solve_closed(unlimited, s, 1500, 10.0);
  auto want = wb::solve_closed(plain, s, 1500, 10.0);
  CHECK(r.throughput == Approx(want.throughput).epsilon(1e-9));
  CHECK(r.centers[0].queue_length == Approx(0).margin(1e-6));  // nobody waits for a token
  // Tokens held: every client not thinking and not at the net delay (0.5 ms) is inside the pool.
  CHECK(r.centers[0].utilization * 2e9 == Approx(1500 - r.throughput * (10.0 + 0.5)).epsilon(1e-9));
  for (std::size_t k = 1; k < 4; ++k) {
    INFO(r.centers[k].name);
    CHECK(r.centers[k].queue_length == Approx(want.centers[k - 1].queue_length).epsilon(1e-6));
  }

  // 20000 tokens around 20 disks at 15000 clients: a curve of M = 2000 populations (in 2 networks,
  // the pool needing its complement) would take the outer recursion past its budget, so it ends
  // near 1660 — where the disks are long saturated. No token is ever waited for, and the network
  // is at its saturation limits: X = 20/40 per ms, the balancer an M/M/1 queue at 25% (1/3 there),
  // everyone else at the disks.
  wb::QueueNetwork disks;
  disks.centers.push_back(pool("threads", "20000"));
  disks.centers.push_back(within(center("disk", "20", 40.0), "threads"));
  disks.centers.push_back(center("lb", "1", 0.5));
  auto pooled = wb::solve_closed(disks, wb::Sample(), 15000, 100.0);
  CHECK(pooled.throughput == Approx(0.5).epsilon(1e-12));
  CHECK(pooled.centers[0].queue_length == Approx(0).margin(1e-9));
  CHECK(pooled.centers[2].queue_length == Approx(1 / 3.0).epsilon(1e-9));
  CHECK(pooled.centers[1].queue_length == Approx(15000 - 50 - 1 / 3.0).epsilon(1e-12));
  CHECK(pooled.centers[0].utilization * 20000 == Approx(pooled.centers[1].queue_length).epsilon(1e-12));

  // A multi-server center outside the pool with 2000 servers below 20000 clients would take the
  // exact recursion past its budget: it takes Seidmann's approximation, the rest stays exact.
  wb::QueueNetwork farm = *cfg.model();
  farm.centers.push_back(center("farm", "2000", 1000.0));
  auto big = wb::solve_closed(farm, cfg.sample("disks=2,threads=100"), 20000, 0);
  CHECK(big.seidmann_centers == 1);
  CHECK(big.throughput == Approx(2 / 12.0).epsilon(1e-9));        // the disks saturate
  CHECK(big.centers[4].residence == Approx(1000).epsilon(1e-3));  // 8% of the farm busy
  CHECK(20000 == Approx(big.throughput * big.response).epsilon(1e-9));
}
