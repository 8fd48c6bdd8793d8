#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.hpp"
#include "models/open_network.hpp"
#include "models/operational_laws.hpp"
#include "tests/models/closed_network_support.hpp"

namespace {

wb::ServiceCenter center(const std::string& name, const std::string& servers, const std::string& demand_ms,
                         double visits = 1, wb::Discipline d = wb::Discipline::kFcfs) {
  wb::ServiceCenter c;
  c.name = name;
  c.servers = wb::Expr::parse(servers);
  c.demand_ms = wb::Expr::parse(demand_ms);
  c.visits = visits;
  c.discipline = d;
  return c;
}

using wb::test::pool;

// The NFS-like testbed of configs/sim.toml: an nfsd pool around two CPUs and {disks} disks.
wb::QueueNetwork nfs() {
  wb::QueueNetwork net;
  net.centers.push_back(pool("nfsd", "{threads}"));
  net.centers.push_back(center("net", "1", "0.5", 1, wb::Discipline::kDelay));
  net.centers.push_back(center("cpu", "2", "0.6"));
  net.centers.back().within = "nfsd";
  net.centers.push_back(center("disk", "{disks}", "8", 0.7));
  net.centers.back().within = "nfsd";
  return net;
}

wb::Sample sample(int disks, int threads) {
  wb::Sample s;
  s.set("disks", std::to_string(disks));
  s.set("threads", std::to_string(threads));
  return s;
}

}  // namespace

TEST_CASE("open stations match their closed forms: M/M/2, M/M/1-PS with revisits, M/G/1, delay") {
  wb::QueueNetwork net;
  net.centers.push_back(center("web", "2", "10"));
  net.centers.push_back(center("app", "1", "5", 2, wb::Discipline::kPs));
  net.centers.push_back(center("db", "1", "4"));
  net.centers.back().distribution = wb::ServiceDistribution::kLognormal;
  net.centers.back().cv = 2;
  net.centers.push_back(center("net", "1", "3", 1, wb::Discipline::kDelay));
  double lambda = 80;  // requests/s
  auto r = wb::solve_open(net, wb::Sample(), lambda);
  REQUIRE(r.stable);
  double l = lambda / 1000;  // per ms
  double rho_web = l * 10 / 2, rho_app = l * 2 * 5, rho_db = l * 4;
  CHECK(r.centers[0].utilization == Approx(rho_web));
  CHECK(r.centers[0].response_ms == Approx(10 / (1 - rho_web * rho_web)));  // M/M/2: S/(1−ρ²)
  CHECK(r.centers[1].response_ms == Approx(2 * 5 / (1 - rho_app)));         // PS: V·S/(1−ρ)
  CHECK(r.centers[2].response_ms ==
        Approx(4 + l * 16 * (1 + 4) / (2 * (1 - rho_db))));  // Pollaczek–Khinchine
  CHECK(r.centers[3].response_ms == Approx(3));
  CHECK(r.centers[3].utilization == 0);
  CHECK(r.response_ms ==
        Approx(r.centers[0].response_ms + r.centers[1].response_ms + r.centers[2].response_ms + 3));
  CHECK(r.bottleneck == "app");
  CHECK(r.centers[1].demand_ms == Approx(10));
}

TEST_CASE("saturation rate is min servers/(visits·demand) and the network is unstable beyond it") {
  wb::QueueNetwork net;
  net.centers.push_back(center("cpu", "2", "3"));
  net.centers.push_back(center("disk", "{disks}", "8", 1.5));
  for (int disks : {1, 2, 4}) {
    wb::Sample s;
    s.set("disks", std::to_string(disks));
    double expect = std::min(2 / 3.0, disks / 12.0) * 1000;
    CHECK(wb::saturation_rate(net, s) == Approx(expect));
    auto over = wb::solve_open(net, s, expect * 1.01);
    CHECK_FALSE(over.stable);
    CHECK(std::isinf(over.response_ms));
    CHECK(over.bottleneck == (disks < 8 ? "disk" : "cpu"));
    CHECK(wb::solve_open(net, s, expect * 0.99).stable);
  }
}

TEST_CASE("predicted peak solves R(lambda) = R_sat: the M/M/1 closed form") {
  wb::QueueNetwork net;
  net.centers.push_back(center("disk", "1", "10"));
  // R = S/(1 − λS) = R_sat  ⇒  λ* = (1 − S/R_sat)/S.
  for (double r_sat : {12.0, 40.0, 400.0}) {
    double expect = (1 - 10 / r_sat) / 10 * 1000;
    double got = wb::predicted_peak(net, wb::Sample(), r_sat);
    CHECK(got == Approx(expect).epsilon(1e-9));
    CHECK(wb::solve_open(net, wb::Sample(), got).response_ms == Approx(r_sat).epsilon(1e-9));
  }
  CHECK(wb::predicted_peak(net, wb::Sample(), 9.0) == 0);  // even idle, R = 10 ms > R_sat
}

TEST_CASE("NFS-like testbed: the pool caps throughput and more disks need more threads [003 Fig. 2]") {
  auto net = nfs();
  // Light-load response: the bare demands, nothing queues.
  auto idle = wb::solve_open(net, sample(2, 16), 0);
  CHECK(idle.response_ms == Approx(0.5 + 0.6 + 0.7 * 8).epsilon(1e-9));
  // One thread serializes everything inside the pool: capacity 1/(0.6 + 5.6) ms.
  CHECK(wb::saturation_rate(net, sample(4, 1)) == Approx(1000 / 6.2).epsilon(1e-9));
  // Plenty of threads: the disks bound it, (disks/5.6 ms).
  CHECK(wb::saturation_rate(net, sample(1, 64)) == Approx(1000 / 5.6).epsilon(1e-6));
  // The threads needed to reach 95% of the disk bound grow with the number of disks.
  int previous = 0;
  for (int disks = 1; disks <= 4; ++disks) {
    int needed = 0;
    for (int t = 1; t <= 100; ++t) {
      if (wb::saturation_rate(net, sample(disks, t)) >= 0.95 * disks * 1000 / 5.6) {
        needed = t;
        break;
      }
    }
    INFO("disks = " << disks << " threads needed = " << needed);
    REQUIRE(needed > 0);
    CHECK(needed > previous);
    previous = needed;
  }
  // The peak at R_sat = 40 ms rises with threads until the disks are the limit.
  double p4 = wb::predicted_peak(net, sample(4, 4), 40);
  double p16 = wb::predicted_peak(net, sample(4, 16), 40);
  double p64 = wb::predicted_peak(net, sample(4, 64), 40);
  CHECK(p4 < p16);
  CHECK(p16 <= p64 * (1 + 1e-9));
  CHECK(p64 < wb::saturation_rate(net, sample(4, 64)));
  auto at_peak = wb::solve_open(net, sample(4, 16), p16);
  CHECK(at_peak.response_ms == Approx(40).epsilon(1e-6));
}

TEST_CASE("predicted peaks for several limits at once equal predicted peak for each, whatever the order") {
  auto net = nfs();
  for (auto s : {sample(1, 4), sample(4, 16), sample(2, 32)}) {
    const std::vector<double> limits{40, 36, 44, 5, 400};  // 5 ms: below the idle response time
    auto together = wb::predicted_peaks(net, s, limits);
    auto reversed = wb::predicted_peaks(net, s, {limits.rbegin(), limits.rend()});
    REQUIRE(together.size() == limits.size());
    REQUIRE(reversed.size() == limits.size());
    for (std::size_t i = 0; i < limits.size(); ++i) {
      INFO(s.key() << " R_sat " << limits[i]);
      double alone = wb::predicted_peak(net, s, limits[i]);
      CHECK(together[i] == Approx(alone).epsilon(1e-12));
      CHECK(reversed[limits.size() - 1 - i] == Approx(alone).epsilon(1e-12));
      if (alone > 0)
        CHECK(wb::solve_open(net, s, together[i]).response_ms == Approx(limits[i]).epsilon(1e-9));
    }
    CHECK(together[3] == 0);
    CHECK(together[1] < together[0]);
    CHECK(together[0] < together[2]);
  }
  wb::QueueNetwork delay;
  delay.centers.push_back(center("wan", "1", "20", 1, wb::Discipline::kDelay));
  auto never = wb::predicted_peaks(delay, wb::Sample(), {40, 10});
  CHECK(std::isinf(never[0]));
  CHECK(never[1] == 0);
  CHECK_THROWS_AS(wb::predicted_peaks(net, sample(2, 4), {40, 0}), wb::Error);
}

TEST_CASE("pool results: token utilization, waits and inner rates stay consistent") {
  auto net = nfs();
  auto s = sample(2, 4);
  double lambda = 0.7 * wb::saturation_rate(net, s);
  auto r = wb::solve_open(net, s, lambda);
  REQUIRE(r.stable);
  const auto& p = r.centers[0];
  CHECK(p.pool);
  CHECK(p.servers == 4);
  CHECK(p.demand_ms == Approx(0.6 + 5.6));
  CHECK(p.utilization > 0);
  CHECK(p.utilization < 1);
  // Inner utilizations are the utilization law at the full rate (the pool is stable).
  CHECK(r.centers[2].utilization == Approx(lambda / 1000 * 0.6 / 2));
  CHECK(r.centers[3].utilization == Approx(lambda / 1000 * 5.6 / 2));
  // Little's law on the tokens: mean tokens held = λ·(time holding one).
  double holding = r.centers[2].response_ms + r.centers[3].response_ms;
  CHECK(p.utilization * 4 == Approx(lambda / 1000 * holding).epsilon(1e-9));
  CHECK(r.response_ms == Approx(p.response_ms + 0.5 + holding));
}

TEST_CASE("operational bounds over the network's centers") {
  auto centers = wb::closed_centers(nfs(), sample(2, 16));
  REQUIRE(centers.size() == 3);  // the pool itself is not a product-form center
  auto b = wb::bottleneck_bounds(centers, 0);
  CHECK(b.bottleneck == "disk");
  CHECK(b.max_throughput * 1000 == Approx(2 * 1000 / 5.6));
  CHECK(wb::saturation_rate(nfs(), sample(2, 100)) <= b.max_throughput * 1000 * (1 + 1e-12));
}

TEST_CASE("expressions that evaluate to impossible values name the center and the sample") {
  wb::QueueNetwork net;
  net.centers.push_back(center("disk", "{disks}/3", "{size} - 10"));
  wb::Sample s;
  s.set("disks", "2");
  s.set("size", "4");
  CHECK_THROWS_WITH(wb::solve_open(net, s, 10), Catch::Contains("model center 'disk': servers '{disks}/3'") &&
                                                    Catch::Contains("whole number"));
  s.set("disks", "3");
  CHECK_THROWS_WITH(wb::saturation_rate(net, s),
                    Catch::Contains("model center 'disk': service_ms '{size} - 10' is -6") &&
                        Catch::Contains("disks=3,size=4"));
  CHECK_THROWS_AS(wb::solve_open(net, s, 10), wb::InputError);
  CHECK_THROWS_AS(wb::solve_open(nfs(), sample(1, 1), -5), wb::Error);
}

TEST_CASE("a network of delay centers never saturates") {
  wb::QueueNetwork net;
  net.centers.push_back(center("wan", "1", "20", 1, wb::Discipline::kDelay));
  CHECK(std::isinf(wb::saturation_rate(net, wb::Sample())));
  CHECK(std::isinf(wb::predicted_peak(net, wb::Sample(), 40)));
  CHECK(wb::predicted_peak(net, wb::Sample(), 10) == 0);
  auto r = wb::solve_open(net, wb::Sample(), 1e6);
  CHECK(r.stable);
  CHECK(r.response_ms == Approx(20));
}
