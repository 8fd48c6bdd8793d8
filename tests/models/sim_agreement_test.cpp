#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "core/config.hpp"
#include "harness/sim/simulation.hpp"
#include "models/open_network.hpp"

// Open-network predictions must match the simulated testbed (harness/sim) within 5% for
// utilizations below 80%. The simulation is a different computation of the same network — events
// on a virtual clock, real service-time distributions, pools as actual tokens — so agreement here
// checks the approximations of models/ (Allen–Cunneen, exponential service in the pool's QBD,
// the flow-equivalent pool) against the behaviour they approximate. Runs are seeded and long enough
// (about 400,000 measured requests) that the simulation's own noise is around 1%.

namespace {

struct Observed {
  double response_ms = 0;
  std::vector<double> utilization;
};

Observed simulate(const wb::QueueNetwork& net, const wb::Sample& s, double lambda, std::uint64_t seed) {
  wb::sim::RunSpec spec;
  spec.rate = lambda;
  spec.warmup_s = 20000 / lambda;  // 20,000 requests to reach steady state
  spec.runlength_s = 400000 / lambda;
  spec.timeout_s = 1e9;  // no timeouts: compare means over every request
  spec.seed = seed;
  auto out = wb::sim::simulate(net, s, spec);
  REQUIRE(out.completed == out.sent);
  Observed o;
  o.response_ms = std::accumulate(out.response_ms.begin(), out.response_ms.end(), 0.0) /
                  static_cast<double>(out.response_ms.size());
  o.utilization = out.utilization;
  return o;
}

// Compares model and simulation at 30%, 55% and 80% of the model's saturation rate, where the
// busiest center's utilization is at most 80%.
void check_agreement(const wb::QueueNetwork& net, const wb::Sample& s, std::uint64_t seed) {
  double lambda_max = wb::saturation_rate(net, s);
  REQUIRE(std::isfinite(lambda_max));
  for (double load : {0.3, 0.55, 0.8}) {
    double lambda = load * lambda_max;
    auto model = wb::solve_open(net, s, lambda);
    auto sim = simulate(net, s, lambda, seed++);
    INFO("sample " << s.key() << ", load " << load << " of " << lambda_max << "/s: model R = "
                   << model.response_ms << " ms, simulated R = " << sim.response_ms << " ms");
    REQUIRE(model.stable);
    double busiest = 0;
    for (std::size_t i = 0; i < model.centers.size(); ++i) {
      const auto& c = model.centers[i];
      busiest = std::max(busiest, c.utilization);
      INFO("center " << c.name << ": model U = " << c.utilization
                     << ", simulated U = " << sim.utilization[i]);
      CHECK(c.utilization == Approx(sim.utilization[i]).epsilon(0.05).margin(0.005));
    }
    CHECK(busiest <= 0.8 + 1e-9);
    CHECK(model.response_ms == Approx(sim.response_ms).epsilon(0.05));
  }
}

wb::ServiceCenter center(const std::string& name, const std::string& servers, double demand_ms) {
  wb::ServiceCenter c;
  c.name = name;
  c.servers = wb::Expr::parse(servers);
  c.demand_ms = wb::Expr::constant(demand_ms);
  return c;
}

}  // namespace

TEST_CASE("the NFS-like simulated testbed (configs/sim.toml) agrees with the open-network model") {
  auto cfg = wb::Config::load(WB_SOURCE_DIR "/configs/sim.toml");
  REQUIRE(cfg.sim().has_value());
  const auto& net = cfg.sim()->network;
  std::uint64_t seed = 11;
  // Token-bound (few threads), disk-bound (many threads) and in between.
  for (const char* set : {"disks=1,threads=16", "disks=2,threads=2", "disks=4,threads=4",
                          "disks=4,threads=16", "disks=3,threads=8", "disks=1,threads=1", "disks=2,threads=4",
                          "disks=4,threads=8", "disks=4,threads=100"}) {
    check_agreement(net, cfg.sample(set), seed);
    seed += 10;
  }
}

TEST_CASE("a network without pools agrees with the simulation: multi-server, PS, M/D/1, revisits, delay") {
  wb::QueueNetwork net;
  net.centers.push_back(center("front", "3", 6.0));  // M/M/3
  net.centers.push_back(center("app", "1", 2.0));    // PS, lognormal cv 2: the M/M/1 means hold
  net.centers.back().discipline = wb::Discipline::kPs;
  net.centers.back().distribution = wb::ServiceDistribution::kLognormal;
  net.centers.back().cv = 2;
  net.centers.push_back(center("log", "1", 1.5));  // M/D/1, visited 2.5 times on average
  net.centers.back().distribution = wb::ServiceDistribution::kDeterministic;
  net.centers.back().visits = 2.5;
  net.centers.push_back(center("db", "{disks}", 9.0));  // M/G/c with lognormal cv 1.5: Allen–Cunneen
  net.centers.back().distribution = wb::ServiceDistribution::kLognormal;
  net.centers.back().cv = 1.5;
  net.centers.push_back(center("wan", "1", 20.0));  // delay
  net.centers.back().discipline = wb::Discipline::kDelay;
  for (int disks : {1, 3}) {
    wb::Sample s;
    s.set("disks", std::to_string(disks));
    check_agreement(net, s, 100 + static_cast<std::uint64_t>(disks));
  }
}
