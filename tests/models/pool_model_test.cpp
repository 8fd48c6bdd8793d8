#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <functional>
#include <map>

#include "ctmc.hpp"
#include "models/erlang.hpp"
#include "models/pool_model.hpp"

// The flow-equivalent pool model against the full Markov chain of "Poisson arrivals, N_P tokens,
// inner stations in tandem, FCFS wait for a token", solved by Eigen. The decomposition is exact
// when the pool holds a single (multi-server) station and an approximation otherwise: the inner
// state given n tokens out is not exactly the closed network's, because arrivals and departures
// reshape it. For the tandem below its error is under 0.1%.

namespace {

struct ChainMeans {
  double waiting = 0;            // requests waiting for a token
  double tokens = 0;             // tokens held
  std::vector<double> at;        // requests at each inner station
};

ChainMeans pool_chain(double lambda, int tokens, const std::vector<double>& service, const std::vector<int>& servers, int max_wait) {
  const std::size_t k_n = service.size();
  // State: waiting count, then customers per inner station.
  std::vector<std::vector<int>> states;
  std::function<void(std::vector<int>&, std::size_t, int)> fill = [&](std::vector<int>& s, std::size_t k, int left) {
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
    if (held < tokens) ++t[1]; else ++t[0];
    add(s, t, lambda);
    for (std::size_t k = 0; k < k_n; ++k) {
      int busy = s[k + 1];
      if (busy == 0) continue;
      if (servers[k] > 0) busy = std::min(busy, servers[k]);
      t = s;
      --t[k + 1];
      if (k + 1 < k_n) {
        ++t[k + 2];
      } else if (t[0] > 0) {  // leaves; the first waiter takes its token
        --t[0];
        ++t[1];
      }
      add(s, t, busy / service[k]);
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) q(i, i) = -q.row(i).sum();
  Eigen::VectorXd pi = wb::test::stationary(q);
  ChainMeans m;
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
  wb::PoolModel pool(400, {{"cpu", 1.0, 2, wb::ClosedCenterKind::kQueue}, {"disk", 8.0, 4, wb::ClosedCenterKind::kQueue}});
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
