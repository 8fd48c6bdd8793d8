#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <functional>
#include <map>
#include <thread>
#include <vector>

#include "ctmc.hpp"
#include "models/convolution.hpp"
#include "models/erlang.hpp"
#include "models/pool_model.hpp"
#include "models/pool_qbd.hpp"

// The flow-equivalent pool model against the full Markov chain of "Poisson arrivals, N_P tokens,
// inner stations in tandem, FCFS wait for a token", solved by Eigen. The decomposition is exact
// when the pool holds a single (multi-server) station and an approximation otherwise: the inner
// state given n tokens out is not exactly the closed network's, because arrivals and departures
// reshape it. For the tandem below its error is under 0.1%.

namespace {

struct PoolChainMeans {
  double waiting = 0;      // requests waiting for a token
  double tokens = 0;       // tokens held
  std::vector<double> at;  // requests at each inner station
};

// `visit`: probability that a request visits each station (the first is always visited).
PoolChainMeans pool_chain(double lambda, int tokens, const std::vector<double>& service,
                          const std::vector<int>& servers, int max_wait, std::vector<double> visit = {}) {
  if (visit.empty()) visit.assign(service.size(), 1.0);
  const std::size_t k_n = service.size();
  // State: waiting count, then customers per inner station.
  std::vector<std::vector<int>> states;
  std::function<void(std::vector<int>&, std::size_t, int)> fill = [&](std::vector<int>& s, std::size_t k,
                                                                      int left) {
    if (k == k_n) {
      int held = 0;
      for (std::size_t i = 1; i <= k_n; ++i) held += s[i];
      if (s[0] == 0 || held == tokens) states.push_back(s);
      return;
    }
    for (int j = 0; j <= left; ++j) {
      s[k + 1] = j;
      fill(s, k + 1, left - j);
    }
  };
  for (int w = 0; w <= max_wait; ++w) {
    std::vector<int> s(k_n + 1, 0);
    s[0] = w;
    fill(s, 0, tokens);
  }
  std::map<std::vector<int>, Eigen::Index> index;
  for (std::size_t i = 0; i < states.size(); ++i) index[states[i]] = static_cast<Eigen::Index>(i);
  const auto n = static_cast<Eigen::Index>(states.size());
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
  auto add = [&](const std::vector<int>& from, const std::vector<int>& to, double rate) {
    auto it = index.find(to);
    if (it != index.end()) q(index[from], it->second) += rate;
  };
  for (const auto& s : states) {
    int held = 0;
    for (std::size_t i = 1; i <= k_n; ++i) held += s[i];
    auto t = s;
    if (held < tokens)
      ++t[1];
    else
      ++t[0];
    add(s, t, lambda);
    for (std::size_t k = 0; k < k_n; ++k) {
      int busy = s[k + 1];
      if (busy == 0) continue;
      if (servers[k] > 0) busy = std::min(busy, servers[k]);
      // Next station j > k with probability Π(skipped)·visit[j], else the request leaves and the
      // first waiter takes its token.
      double none = 1;
      for (std::size_t j = k + 1; j < k_n; ++j) {
        t = s;
        --t[k + 1];
        ++t[j + 1];
        add(s, t, busy / service[k] * none * visit[j]);
        none *= 1 - visit[j];
      }
      t = s;
      --t[k + 1];
      if (t[0] > 0) {
        --t[0];
        ++t[1];
      }
      add(s, t, busy / service[k] * none);
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) q(i, i) = -q.row(i).sum();
  Eigen::VectorXd pi = wb::test::stationary(q);
  PoolChainMeans m;
  m.at.assign(k_n, 0.0);
  for (const auto& s : states) {
    double p = pi(index[s]);
    m.waiting += s[0] * p;
    for (std::size_t k = 0; k < k_n; ++k) {
      m.at[k] += s[k + 1] * p;
      m.tokens += s[k + 1] * p;
    }
  }
  return m;
}

}  // namespace

TEST_CASE("the flow-equivalent pool is exact for one multi-server station inside") {
  wb::PoolModel pool(3, {{"disk", 6.0, 2, wb::ClosedCenterKind::kQueue}});
  CHECK(pool.capacity() == Approx(2 / 6.0));
  for (double load : {0.3, 0.85}) {
    double lambda = load * pool.capacity();
    auto chain = pool_chain(lambda, 3, {6.0}, {2}, 200);
    auto s = pool.at(lambda);
    CHECK(s.token_wait == Approx(chain.waiting / lambda).epsilon(1e-8));
    CHECK(s.tokens_busy == Approx(chain.tokens).epsilon(1e-8));
    CHECK(s.residence[0] == Approx(chain.at[0] / lambda).epsilon(1e-8));
  }
}

TEST_CASE("the flow-equivalent pool is within 0.1% of the Markov chain for a CPU and a disk inside") {
  // An nfsd-like pool: 3 tokens around a 2-server CPU (0.6) and a single disk (5.6 per request).
  std::vector<wb::ClosedCenter> inner{{"cpu", 0.6, 2, wb::ClosedCenterKind::kQueue},
                                      {"disk", 5.6, 1, wb::ClosedCenterKind::kQueue}};
  wb::PoolModel pool(3, inner);
  CHECK(pool.capacity() < 1 / 5.6);  // 3 tokens cannot keep the disk always busy
  for (double load : {0.3, 0.6, 0.85}) {
    double lambda = load * pool.capacity();
    INFO("lambda = " << lambda << " (" << load << " of capacity)");
    // Tail of the waiting line decays like load^w: 160 waiters leave < 1e-11 of the mass out.
    auto chain = pool_chain(lambda, 3, {0.6, 5.6}, {2, 1}, 160);
    auto s = pool.at(lambda);
    REQUIRE(s.stable);
    CHECK(s.token_wait == Approx(chain.waiting / lambda).epsilon(1e-3));
    CHECK(s.tokens_busy == Approx(chain.tokens).epsilon(1e-3));
    CHECK(s.residence[0] == Approx(chain.at[0] / lambda).epsilon(1e-3));
    CHECK(s.residence[1] == Approx(chain.at[1] / lambda).epsilon(1e-3));
  }
}

TEST_CASE("a pool with one token around one server is an M/M/1 queue") {
  wb::PoolModel pool(1, {{"disk", 4.0, 1, wb::ClosedCenterKind::kQueue}});
  CHECK(pool.capacity() == Approx(0.25));
  auto s = pool.at(0.2);
  CHECK(s.token_wait + s.residence[0] == Approx(wb::mmc(1, 0.2, 4.0).response).epsilon(1e-12));
  CHECK(s.residence[0] == Approx(4.0));  // with the token held nothing else is at the disk
}

TEST_CASE("a pool with many tokens vanishes into its inner stations") {
  wb::PoolModel pool(
      400, {{"cpu", 1.0, 2, wb::ClosedCenterKind::kQueue}, {"disk", 8.0, 4, wb::ClosedCenterKind::kQueue}});
  double lambda = 0.4;  // disk at 80%
  auto s = pool.at(lambda);
  CHECK(s.token_wait == Approx(0).margin(1e-9));
  CHECK(s.residence[0] == Approx(wb::mmc(2, lambda, 1.0).response).epsilon(1e-8));
  CHECK(s.residence[1] == Approx(wb::mmc(4, lambda, 8.0).response).epsilon(1e-8));
}

TEST_CASE("a saturated pool reports infinite waits and full tokens, and a light one bare demands") {
  wb::PoolModel pool(2, {{"disk", 10.0, 4, wb::ClosedCenterKind::kQueue}});
  CHECK(pool.capacity() == Approx(0.2));  // two tokens, 10 each: the disks cannot all be used
  auto sat = pool.at(0.25);
  CHECK_FALSE(sat.stable);
  CHECK(std::isinf(sat.token_wait));
  CHECK(sat.tokens_busy == 2);
  auto idle = pool.at(0.0);
  CHECK(idle.stable);
  CHECK(idle.residence[0] == Approx(10.0));
  CHECK(idle.tokens_busy == 0);
  CHECK_THROWS(wb::PoolModel(0, {{"disk", 10.0, 1, wb::ClosedCenterKind::kQueue}}));
}

TEST_CASE("the QBD pool solution is exact where the flow-equivalent server is not") {
  // Four tokens around a 2-CPU stage (1 ms) and 2 disks (15 ms) that 80% of requests visit: tokens
  // and disks are both scarce, and the flow-equivalent server misses the correlation between a
  // waiting line for tokens and slow inner states.
  wb::PoolModel fes(
      4, {{"cpu", 1.0, 2, wb::ClosedCenterKind::kQueue}, {"disk", 12.0, 2, wb::ClosedCenterKind::kQueue}});
  for (double load : {0.3, 0.55, 0.8}) {
    double lambda = load * fes.capacity();
    INFO("load " << load);
    auto chain = pool_chain(lambda, 4, {1.0, 15.0}, {2, 2}, 220, {1.0, 0.8});
    auto qbd = wb::solve_pool_qbd(4, {{1.0, 2, 1.0}, {15.0, 2, 0.8}}, lambda);
    REQUIRE(qbd.has_value());
    CHECK(qbd->token_wait == Approx(chain.waiting / lambda).epsilon(1e-8));
    CHECK(qbd->tokens_busy == Approx(chain.tokens).epsilon(1e-8));
    CHECK(qbd->residence[0] == Approx(chain.at[0] / lambda).epsilon(1e-8));
    CHECK(qbd->residence[1] == Approx(chain.at[1] / lambda).epsilon(1e-8));
    if (load == 0.8) {
      // What the QBD is for: the plain flow-equivalent server is 20% short here.
      CHECK(fes.at(lambda).token_wait < 0.85 * chain.waiting / lambda);
    }
  }
  // The tandem of the test above, with every station visited: QBD and chain agree exactly too.
  auto chain = pool_chain(0.15, 3, {0.6, 5.6}, {2, 1}, 200);
  auto qbd = wb::solve_pool_qbd(3, {{0.6, 2, 1.0}, {5.6, 1, 1.0}}, 0.15);
  REQUIRE(qbd.has_value());
  CHECK(qbd->token_wait == Approx(chain.waiting / 0.15).epsilon(1e-8));
}

TEST_CASE("the QBD handles revisits and delay stations, and declines large phase spaces") {
  // A delay stage inside the pool (servers 0) and 2.5 mean visits to one disk: compare the light-
  // load limit (no waiting anywhere) with the bare demands.
  auto light = wb::solve_pool_qbd(2, {{0.5, 0, 1.0}, {4.0, 1, 2.5}}, 1e-9);
  REQUIRE(light.has_value());
  CHECK(light->residence[0] == Approx(0.5).epsilon(1e-6));
  CHECK(light->residence[1] == Approx(10.0).epsilon(1e-6));
  // Little's law on tokens: tokens held = λ·(time holding one).
  auto mid = wb::solve_pool_qbd(2, {{0.5, 0, 1.0}, {4.0, 1, 2.5}}, 0.05);
  REQUIRE(mid.has_value());
  CHECK(mid->tokens_busy == Approx(0.05 * (mid->residence[0] + mid->residence[1])).epsilon(1e-9));
  // 3 stations and 100 tokens: 5151 phases, more than the default limit.
  CHECK_FALSE(wb::solve_pool_qbd(100, {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, 0.1).has_value());
  CHECK_THROWS(wb::solve_pool_qbd(2, {{0.0, 1, 1.0}}, 0.1));
}

namespace {

bool same_bits(const wb::PoolModel::State& a, const wb::PoolModel::State& b) {
  return a.stable == b.stable && a.token_wait == b.token_wait && a.tokens_busy == b.tokens_busy &&
         a.residence == b.residence && a.queue == b.queue;
}

}  // namespace

TEST_CASE("a repeated QBD solve comes from the memo, the same to the bit, and other arguments do not") {
  const std::vector<wb::PoolStation> stations{{1.0, 2, 1.0}, {15.0, 3, 0.8}};
  auto before = wb::pool_qbd_memo_stats();
  auto first = wb::solve_pool_qbd(7, stations, 0.123456);
  auto after_first = wb::pool_qbd_memo_stats();
  auto again = wb::solve_pool_qbd(7, stations, 0.123456);
  auto after_again = wb::pool_qbd_memo_stats();
  REQUIRE(first.has_value());
  REQUIRE(again.has_value());
  CHECK(after_first.misses == before.misses + 1);
  CHECK(after_again.hits == after_first.hits + 1);
  CHECK(after_again.misses == after_first.misses);
  CHECK(same_bits(*first, *again));
  // Any argument that differs, by as little as one ulp of the rate, is a different solve.
  auto misses = after_again.misses;
  wb::solve_pool_qbd(7, stations, std::nextafter(0.123456, 1.0));
  wb::solve_pool_qbd(8, stations, 0.123456);
  wb::solve_pool_qbd(7, {{1.0, 2, 1.0}, {15.0, 3, 0.9}}, 0.123456);
  wb::solve_pool_qbd(7, {{1.0, 2, 1.0}, {15.0, 2, 0.8}}, 0.123456);
  wb::solve_pool_qbd(7, stations, 0.123456, 159);
  CHECK(wb::pool_qbd_memo_stats().misses == misses + 5);
}

TEST_CASE("the QBD memo keeps the most recently used solves up to its capacity") {
  const std::vector<wb::PoolStation> stations{{0.25, 1, 1.0}, {2.0, 1, 0.5}};
  const std::size_t capacity = wb::pool_qbd_memo_stats().capacity;
  REQUIRE(capacity > 0);
  auto rate = [](std::size_t i) { return 0.01 + 1e-6 * static_cast<double>(i); };
  auto oldest = wb::solve_pool_qbd(2, stations, rate(0));
  for (std::size_t i = 1; i < capacity; ++i) wb::solve_pool_qbd(2, stations, rate(i));
  CHECK(wb::pool_qbd_memo_stats().entries == capacity);
  // Use the oldest again: it becomes the most recent, and the next insert drops rate(1) instead.
  auto hits = wb::pool_qbd_memo_stats().hits;
  wb::solve_pool_qbd(2, stations, rate(0));
  CHECK(wb::pool_qbd_memo_stats().hits == hits + 1);
  wb::solve_pool_qbd(2, stations, rate(capacity));
  CHECK(wb::pool_qbd_memo_stats().entries == capacity);
  auto misses = wb::pool_qbd_memo_stats().misses;
  auto again = wb::solve_pool_qbd(2, stations, rate(0));
  CHECK(wb::pool_qbd_memo_stats().misses == misses);
  wb::solve_pool_qbd(2, stations, rate(1));
  CHECK(wb::pool_qbd_memo_stats().misses == misses + 1);
  CHECK(same_bits(*oldest, *again));
}

TEST_CASE("threads solving the same QBDs at once all get the solution one thread gets alone") {
  const std::vector<wb::PoolStation> stations{{1.0, 2, 1.0}, {12.0, 4, 0.8}};
  std::vector<double> rates;
  for (int i = 1; i <= 8; ++i) rates.push_back(0.03 * i + 0.0001234);
  // The reference, solved alone: a phase limit other than the threads' is another key (so solved
  // afresh, not taken from the memo) with the same solution.
  std::vector<std::optional<wb::PoolModel::State>> alone;
  for (double r : rates) alone.push_back(wb::solve_pool_qbd(24, stations, r, 1000));
  std::vector<std::vector<std::optional<wb::PoolModel::State>>> got(4);
  std::vector<std::thread> threads;
  for (auto& out : got) {
    threads.emplace_back([&] {
      for (double r : rates) out.push_back(wb::solve_pool_qbd(24, stations, r));
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < rates.size(); ++i) {
    REQUIRE(alone[i].has_value());
    for (const auto& out : got) {
      REQUIRE(out[i].has_value());
      CHECK(same_bits(*out[i], *alone[i]));
    }
  }
}

TEST_CASE("a pool of two billion tokens is its inner stations: Jackson's M/M/c queues, at once") {
  // configs/sim.toml's nfsd pool without its thread limit. Past M = pool_curve_limit(2) levels the
  // chain runs in closed form; here the disks are busy from n = 2 on, so X(M) is their capacity.
  const std::vector<wb::ClosedCenter> inner{{"cpu", 1.0, 2, wb::ClosedCenterKind::kQueue},
                                            {"disk", 12.0, 2, wb::ClosedCenterKind::kQueue}};
  wb::PoolModel pool(2000000000, inner);
  CHECK(pool.throughput_curve().size() == static_cast<std::size_t>(wb::pool_curve_limit(2)) + 1);
  CHECK(pool.capacity() == Approx(2 / 12.0).epsilon(1e-12));
  // The exact curve further out has nothing left to add.
  CHECK(wb::population_curve(inner, 1500).throughput.back() == Approx(pool.capacity()).epsilon(1e-12));
  for (double load : {0.3, 0.8, 0.99}) {
    double lambda = load * 2 / 12.0;
    INFO("disk utilization " << load);
    auto s = pool.at(lambda);
    REQUIRE(s.stable);
    CHECK(s.token_wait == Approx(0).margin(1e-12));
    const double cpu = wb::mmc(2, lambda, 1.0).response, disk = wb::mmc(2, lambda, 12.0).response;
    CHECK(s.residence[0] == Approx(cpu).epsilon(1e-9));
    CHECK(s.residence[1] == Approx(disk).epsilon(1e-9));
    CHECK(s.tokens_busy == Approx(lambda * (cpu + disk)).epsilon(1e-9));  // Little's law inside
  }
  auto saturated = pool.at(0.2);
  CHECK_FALSE(saturated.stable);
  CHECK(saturated.tokens_busy == 2000000000);
}

TEST_CASE("a pool of many tokens around delays only is an M/M/N_P queue (Erlang C)") {
  // A request holds its token for the 500 ms of two delays: with N_P tokens the pool is exactly
  // N_P servers of 500 ms, beyond the levels the convolution covers too.
  const std::vector<wb::ClosedCenter> inner{{"rpc", 300.0, 1, wb::ClosedCenterKind::kDelay},
                                            {"sleep", 200.0, 1, wb::ClosedCenterKind::kDelay}};
  for (int tokens : {500, 5000, 2000000000}) {
    INFO(tokens << " tokens");
    wb::PoolModel pool(tokens, inner);
    CHECK(pool.capacity() == Approx(tokens / 500.0).epsilon(1e-12));
    double lambda = 0.95 * tokens / 500.0;
    wb::MmcResult m = wb::mmc(tokens, lambda, 500.0);
    auto s = pool.at(lambda);
    REQUIRE(s.stable);
    CHECK(s.token_wait == Approx(m.wait).epsilon(1e-8));
    CHECK(s.tokens_busy == Approx(lambda * 500).epsilon(1e-9));
    CHECK(s.residence[0] == Approx(300.0).epsilon(1e-9));
    CHECK(s.residence[1] == Approx(200.0).epsilon(1e-9));
  }
}
