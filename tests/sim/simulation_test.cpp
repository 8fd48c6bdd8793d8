#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "core/config.hpp"
#include "harness/sim/sim_testbed.hpp"
#include "harness/sim/simulation.hpp"
#include "tests/support/config_text.hpp"

using namespace wb;

namespace {

QueueNetwork one_center(const std::string& servers, double service_ms, ServiceDistribution d,
                        Discipline disc = Discipline::kFcfs) {
  QueueNetwork net;
  ServiceCenter c;
  c.name = "c";
  c.servers = Expr::parse(servers);
  c.demand_ms = Expr::constant(service_ms);
  c.distribution = d;
  c.discipline = disc;
  net.centers.push_back(c);
  return net;
}

double mean(const std::vector<double>& xs) {
  return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}

sim::RunOutcome long_run(const QueueNetwork& net, double rate, const Sample& s = Sample()) {
  sim::RunSpec spec;
  spec.rate = rate;
  spec.warmup_s = 200;
  spec.runlength_s = 400000 / rate;
  spec.timeout_s = 60;
  spec.seed = 7;
  return sim::simulate(net, s, spec);
}

}  // namespace

TEST_CASE("M/M/1 mean response time matches S/(1-rho)") {
  // S = 10 ms, λ = 60/s: ρ = 0.6, R = 25 ms.
  auto o = long_run(one_center("1", 10, ServiceDistribution::kExponential), 60);
  CHECK(mean(o.response_ms) == Approx(25.0).epsilon(0.03));
  CHECK(o.utilization[0] == Approx(0.6).epsilon(0.02));
  CHECK(o.timeouts == 0);
}

TEST_CASE("M/D/1 follows Pollaczek-Khinchine") {
  // R = S + ρS/(2(1-ρ)); S = 10 ms, ρ = 0.7: R = 10 + 7/0.6 = 21.67 ms.
  auto o = long_run(one_center("1", 10, ServiceDistribution::kDeterministic), 70);
  CHECK(mean(o.response_ms) == Approx(10 + 7 / 0.6).epsilon(0.03));
}

TEST_CASE("M/M/c with servers from a factor matches Erlang C") {
  // c = 2, S = 10 ms, λ = 150/s: a = 1.5, ρ = 0.75. C(2, 1.5) = 0.642857; W = C*S/(c(1-ρ)) = 12.857 ms.
  Sample s;
  s.set("disks", "2");
  auto o = long_run(one_center("{disks}", 10, ServiceDistribution::kExponential), 150, s);
  CHECK(mean(o.response_ms) == Approx(10 + 12.857).epsilon(0.03));
}

TEST_CASE("processor sharing M/M/1-PS has the M/M/1 mean and a lognormal service keeps its mean") {
  auto ps = long_run(one_center("1", 10, ServiceDistribution::kLognormal, Discipline::kPs), 50);
  CHECK(mean(ps.response_ms) == Approx(20.0).epsilon(0.03));  // insensitive: S/(1-ρ)
  auto delay = long_run(one_center("1", 10, ServiceDistribution::kLognormal, Discipline::kDelay), 500);
  CHECK(mean(delay.response_ms) == Approx(10.0).epsilon(0.02));
}

TEST_CASE("a one-token pool around a delay center is an M/M/1 queue (simultaneous possession)") {
  QueueNetwork net;
  ServiceCenter pool;
  pool.name = "threads";
  pool.pool = true;
  pool.servers = Expr::parse("{threads}");
  ServiceCenter work = one_center("1", 10, ServiceDistribution::kExponential, Discipline::kDelay).centers[0];
  work.within = "threads";
  net.centers = {pool, work};
  Sample s;
  s.set("threads", "1");
  auto o = long_run(net, 60, s);
  CHECK(mean(o.response_ms) == Approx(25.0).epsilon(0.03));
  CHECK(o.utilization[0] == Approx(0.6).epsilon(0.02));
}

TEST_CASE("the simulated testbed is deterministic per (seed, sample, rate, trial)") {
  auto config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  sim::SimulatedTestbed a(*config.sim(), 3), b(*config.sim(), 3), c(*config.sim(), 4);
  Sample s = config.sample("disks=2,threads=16");
  auto t1 = a.run(s, 100, 60, 0);
  auto t2 = b.run(s, 100, 60, 0);
  auto t3 = c.run(s, 100, 60, 0);
  auto t4 = a.run(s, 100, 60, 1);
  CHECK(t1.mean_ms == t2.mean_ms);
  CHECK(t1.sent == t2.sent);
  CHECK(t1.mean_ms != t3.mean_ms);
  CHECK(t1.mean_ms != t4.mean_ms);
  CHECK(t1.cost_s == config.sim()->warmup_s + 60 + config.sim()->overhead_s);
  CHECK(t1.completed == t1.sent);
  CHECK(t1.achieved_rate == Approx(100).epsilon(0.1));
  CHECK(t1.p50_ms <= t1.p90_ms);
  CHECK(t1.p90_ms <= t1.p99_ms);
  CHECK(t1.p99_ms <= t1.max_ms);
}

TEST_CASE("an overloaded trial falls short of the offered rate") {
  auto config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  sim::SimulatedTestbed tb(*config.sim(), 1);
  auto t = tb.run(config.sample("disks=1,threads=16"), 200, 60, 0);  // capacity about 83/s
  CHECK(static_cast<double>(t.completed) < 0.99 * static_cast<double>(t.sent));
  CHECK(t.errors > 0);
}

// Trials of one sample at one load differ only in trial_index; each must be an independent
// replication. 2000 trials of disks=2,threads=16 at 100/s for 60 s give means with sd 0.99 ms,
// lag-1 correlation -0.008, and pairs agreeing within eps in proportion to eps (12 within 1e-5 ms
// against 11.4 expected), so two trials agreeing to 1e-5 ms is chance, not shared randomness.
TEST_CASE("trial indices at one load give independent replications") {
  auto config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  Sample s = config.sample("disks=2,threads=16");
  auto spread = [](const std::vector<double>& xs) {
    double m = mean(xs), ss = 0, lag = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) ss += (xs[i] - m) * (xs[i] - m);
    for (std::size_t i = 1; i < xs.size(); ++i) lag += (xs[i] - m) * (xs[i - 1] - m);
    return std::pair{std::sqrt(ss / static_cast<double>(xs.size() - 1)), lag / ss};
  };
  std::vector<double> by_index, by_seed;
  sim::SimulatedTestbed tb(*config.sim(), 1);
  for (std::uint64_t i = 0; i < 100; ++i) by_index.push_back(tb.run(s, 100, 60, i).mean_ms);
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    sim::SimulatedTestbed other(*config.sim(), seed);
    by_seed.push_back(other.run(s, 100, 60, 0).mean_ms);
  }
  auto [sd_index, lag_index] = spread(by_index);
  auto [sd_seed, lag_seed] = spread(by_seed);
  CHECK(sd_index > 0.5);  // common random numbers would shrink this towards 0
  CHECK(sd_index < 2.0);
  CHECK(sd_index > 0.7 * sd_seed);
  CHECK(sd_index < 1.4 * sd_seed);
  CHECK(std::abs(lag_index) < 0.3);
  CHECK(std::abs(lag_seed) < 0.3);
}

TEST_CASE("a categorical factor enters [sim] through its workload attributes") {
  // One exponential server whose demand doubles for writes: at 25/s, R = S/(1 - ρ) is 13.3 ms for
  // reads (S = 10 ms) and 40 ms for writes (S = 20 ms).
  const std::string text = R"([testbed]
name = "attr"

[factors.mix]
kind = "workload"
levels = ["read", "write"]
default = "read"

[peak]
r_sat_ms = 40
width = 0.1

[sim.attributes.mix]
cost = { read = 1.0, write = 2.0 }

[[sim.center]]
name = "disk"
service_ms = "10 * {cost}"
)";
  const std::string path = wb::test::write_temp_config("wb_sim_test", "attr.toml", text);
  Config config = Config::load(path);
  QueueNetwork net = config.sim()->network;
  auto mean_at = [&](const char* mix) {
    Sample s;
    s.set("mix", mix);
    return mean(long_run(net, 25, s).response_ms);
  };
  CHECK(mean_at("read") == Approx(10 / 0.75).epsilon(0.04));
  CHECK(mean_at("write") == Approx(40).epsilon(0.06));

  // A level without a value would fail every trial: the config is refused at load instead.
  std::string partial = text;
  partial.replace(partial.find(", write = 2.0"), 13, "");
  const std::string bad = wb::test::write_temp_config("wb_sim_test", "partial.toml", partial);
  CHECK_THROWS_WITH(Config::load(bad), Catch::Contains("sim.attributes.mix") && Catch::Contains("'write'"));
}
