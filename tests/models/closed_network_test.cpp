#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <map>

#include "core/config.hpp"
#include "core/error.hpp"
#include "ctmc.hpp"
#include "models/closed_network.hpp"
#include "models/convolution.hpp"
#include "models/mva.hpp"
#include "tests/models/closed_network_support.hpp"

// solve_closed(): the closed-workload model of a queue network with thread pools — pools as
// flow-equivalent servers inside a load-dependent MVA — against the exact solutions it must
// reproduce (Buzen's convolution without pools, a serialized center for one token) and against
// the full Markov chain of clients, tokens and inner queues. The simulated testbed (harness/sim)
// runs open workloads only, so the chain stands in for it on configs/sim.toml's network.

using namespace wb::test;

namespace {

// The Markov chain of a closed network with at most one pool: clients cycle think → station 0 →
// … → K−1 → think, visiting station k with probability visit[k] (else skipping it; a station
// entered from outside the pool must be its first inner one, visited with probability 1). A
// client takes a token before its first inner station, waits for one in FIFO order when all T are
// held, and releases it when it leaves the pool, to the first waiter. Service is exponential.
struct ChainStation {
  double service = 1;  // mean per visit
  int servers = 1;     // 0: a delay station
  double visit = 1;
  bool in_pool = false;
};

struct ClosedChainMeans {
  double throughput = 0;
  double waiting = 0;         // clients waiting for a token
  double tokens = 0;          // tokens held
  std::vector<double> queue;  // clients at each station
};

ClosedChainMeans closed_chain(double think, const std::vector<ChainStation>& st, int tokens, int clients) {
  const std::size_t k_n = st.size();
  std::size_t first_inner = k_n;
  for (std::size_t k = 0; k < k_n; ++k) {
    if (st[k].in_pool && first_inner == k_n) first_inner = k;
  }
  // State: clients thinking, at each station, waiting for a token.
  const std::size_t wait = k_n + 1;
  std::vector<std::vector<int>> states;
  std::function<void(std::vector<int>&, std::size_t, int)> fill = [&](std::vector<int>& s, std::size_t i,
                                                                      int left) {
    if (i == wait) {
      s[wait] = left;
      int held = 0;
      for (std::size_t k = 0; k < k_n; ++k) held += st[k].in_pool ? s[k + 1] : 0;
      if (held <= tokens && (s[wait] == 0 || held == tokens)) states.push_back(s);
      return;
    }
    if (i == 0 && think == 0) {  // no think stage: nobody is ever in it
      s[0] = 0;
      fill(s, 1, left);
      return;
    }
    for (int j = 0; j <= left; ++j) {
      s[i] = j;
      fill(s, i + 1, left - j);
    }
  };
  std::vector<int> s0(k_n + 2, 0);
  fill(s0, 0, clients);
  std::map<std::vector<int>, Eigen::Index> index;
  for (std::size_t i = 0; i < states.size(); ++i) index[states[i]] = static_cast<Eigen::Index>(i);
  const auto n = static_cast<Eigen::Index>(states.size());
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);

  // Where a client goes after slot `from` (0 = think, k+1 = station k): slot and probability.
  auto next = [&](std::size_t from) {
    std::vector<std::pair<std::size_t, double>> out;
    double none = 1;
    for (std::size_t k = from; k < k_n; ++k) {  // slot k+1 follows slot k
      out.emplace_back(k + 1, none * st[k].visit);
      none *= 1 - st[k].visit;
    }
    if (think > 0) {
      out.emplace_back(0, none);
    } else {
      for (std::size_t k = 0; k < k_n && none > 0; ++k) {  // straight on to the next cycle
        out.emplace_back(k + 1, none * st[k].visit);
        none *= 1 - st[k].visit;
      }
      REQUIRE(none == 0);
    }
    return out;
  };
  auto inside = [&](std::size_t slot) { return slot >= 1 && slot <= k_n && st[slot - 1].in_pool; };

  for (const auto& s : states) {
    for (std::size_t from = 0; from <= k_n; ++from) {
      if (s[from] == 0) continue;
      double rate = 0;
      if (from == 0) {
        rate = s[0] / think;
      } else {
        const auto& c = st[from - 1];
        rate = (c.servers == 0 ? s[from] : std::min(s[from], c.servers)) / c.service;
      }
      for (auto [to, p] : next(from)) {
        if (p == 0) continue;
        auto t = s;
        --t[from];
        if (inside(to) && !inside(from)) {
          REQUIRE(to == first_inner + 1);
          int held = 0;
          for (std::size_t k = 0; k < k_n; ++k) held += st[k].in_pool ? t[k + 1] : 0;
          ++t[held < tokens ? to : wait];
        } else {
          ++t[to];
          if (inside(from) && !inside(to) && t[wait] > 0) {
            --t[wait];
            ++t[first_inner + 1];
          }
        }
        q(index.at(s), index.at(t)) += rate * p;
      }
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) q(i, i) = -q.row(i).sum();
  Eigen::VectorXd pi = wb::test::stationary(q);
  ClosedChainMeans m;
  m.queue.assign(k_n, 0.0);
  double first_busy = 0;
  for (const auto& s : states) {
    double p = pi(index.at(s));
    m.waiting += s[wait] * p;
    for (std::size_t k = 0; k < k_n; ++k) {
      m.queue[k] += s[k + 1] * p;
      if (st[k].in_pool) m.tokens += s[k + 1] * p;
    }
    first_busy += (st[0].servers == 0 ? s[1] : std::min(s[1], st[0].servers)) * p;
  }
  // Utilization law at station 0: busy servers = X · visits · service time.
  m.throughput = first_busy / (st[0].visit * st[0].service);
  return m;
}

// The [model] network of configs/sim.toml for a sample, as chain stations (exponential service).
std::vector<ChainStation> chain_of(const wb::QueueNetwork& net, const wb::Sample& s) {
  std::vector<ChainStation> out;
  for (const auto& c : net.centers) {
    if (c.pool) continue;
    ChainStation x;
    x.service = c.demand_ms.eval(s);
    x.servers = c.discipline == wb::Discipline::kDelay ? 0 : static_cast<int>(c.servers.eval(s));
    x.visit = c.visits;
    x.in_pool = !c.within.empty();
    out.push_back(x);
  }
  return out;
}

}  // namespace

TEST_CASE("without pools the closed network is Buzen's exact convolution, multi-server centers included") {
  wb::QueueNetwork net;
  net.centers.push_back(center("front", "4", 6.0));  // 4 servers: MVA would need Seidmann's approximation
  net.centers.push_back(center("app", "1", 2.0, wb::Discipline::kPs));
  net.centers.push_back(center("db", "{disks}", 3.0));
  net.centers.push_back(center("wan", "1", 20.0, wb::Discipline::kDelay));
  std::vector<wb::ClosedCenter> closed{{"front", 6.0, 4, wb::ClosedCenterKind::kQueue},
                                       {"app", 2.0, 1, wb::ClosedCenterKind::kQueue},
                                       {"db", 3.0, 2, wb::ClosedCenterKind::kQueue},
                                       {"wan", 20.0, 1, wb::ClosedCenterKind::kDelay}};
  for (int n : {1, 5, 50}) {
    for (double z : {0.0, 40.0}) {
      INFO("N = " << n << ", Z = " << z);
      auto r = wb::solve_closed(net, sample("disks", 2), n, z);
      CHECK(r.population == n);
      check_same(r, wb::solve_convolution(closed, n, z), 1e-9);
    }
  }
}

TEST_CASE("a pool with at least as many tokens as clients leaves the network as it was") {
  // net → front (single server) → [pool: disk]: with T >= N nobody ever waits for a token.
  auto with_pool = [](const std::string& tokens) {
    wb::QueueNetwork net;
    net.centers.push_back(center("net", "1", 0.5, wb::Discipline::kDelay));
    net.centers.push_back(center("front", "1", 1.5));
    net.centers.push_back(pool("workers", tokens));
    net.centers.push_back(within(center("disk", "1", 8.0), "workers"));
    return net;
  };
  std::vector<wb::ClosedCenter> plain{{"net", 0.5, 1, wb::ClosedCenterKind::kDelay},
                                      {"front", 1.5, 1, wb::ClosedCenterKind::kQueue},
                                      {"disk", 8.0, 1, wb::ClosedCenterKind::kQueue}};
  for (int n : {1, 6, 40}) {
    for (int extra : {0, 7}) {
      INFO("N = " << n << ", tokens = N + " << extra);
      auto r = wb::solve_closed(with_pool("{t}"), sample("t", n + extra), n, 12.0);
      auto want = wb::solve_convolution(plain, n, 12.0);
      CHECK(r.throughput == Approx(want.throughput).epsilon(1e-10));
      CHECK(r.response == Approx(want.response).epsilon(1e-10));
      REQUIRE(r.centers.size() == 4);
      CHECK(r.centers[0].residence == Approx(0.5));
      CHECK(r.centers[1].queue_length == Approx(want.centers[1].queue_length).epsilon(1e-10));
      CHECK(r.centers[2].residence == Approx(0).margin(1e-9));  // no token wait
      CHECK(r.centers[2].utilization * (n + extra) == Approx(want.centers[2].queue_length).epsilon(1e-10));
      CHECK(r.centers[3].queue_length == Approx(want.centers[2].queue_length).epsilon(1e-10));
      CHECK(r.centers[3].utilization == Approx(want.centers[2].utilization).epsilon(1e-10));
    }
  }
}

TEST_CASE("a pool with one token serializes its inner centers into one server of their total demand") {
  // The threads=1 case of the bug: 2 CPUs and 2 disks inside one token act as a single server of
  // demand 1 + 12 ms, whatever their own server counts.
  wb::QueueNetwork net;
  net.centers.push_back(pool("nfsd", "1"));
  net.centers.push_back(center("net", "1", 0.5, wb::Discipline::kDelay));
  net.centers.push_back(within(center("cpu", "2", 1.0), "nfsd"));
  net.centers.push_back(within(center("disk", "2", 12.0), "nfsd"));
  std::vector<wb::ClosedCenter> serial{{"net", 0.5, 1, wb::ClosedCenterKind::kDelay},
                                       {"token", 13.0, 1, wb::ClosedCenterKind::kQueue}};
  for (int n : {1, 3, 50}) {
    for (double z : {0.0, 30.0}) {
      INFO("N = " << n << ", Z = " << z);
      auto r = wb::solve_closed(net, wb::Sample(), n, z);
      auto want = wb::solve_convolution(serial, n, z);
      CHECK(r.throughput == Approx(want.throughput).epsilon(1e-10));
      CHECK(r.response == Approx(want.response).epsilon(1e-10));
      // The token is busy X·13 of the time; a request holds it for exactly its own demands.
      CHECK(r.centers[0].utilization == Approx(want.centers[1].utilization).epsilon(1e-10));
      CHECK(r.centers[2].residence == Approx(1.0).epsilon(1e-10));
      CHECK(r.centers[3].residence == Approx(12.0).epsilon(1e-10));
      CHECK(r.centers[0].residence + 13.0 == Approx(want.centers[1].residence).epsilon(1e-10));
    }
  }
  // 50 clients and no think time keep the token always busy: X = 1/13 per ms.
  CHECK(wb::solve_closed(net, wb::Sample(), 50, 0).throughput * 1000 == Approx(1000 / 13.0).epsilon(1e-12));
}

TEST_CASE("configs/sim.toml as a closed workload agrees with the exact Markov chain of its network") {
  // The chain serves exponentially (the simulated testbed's disks are lognormal with cv 1 and its
  // network delay deterministic: same means, and the delay is insensitive). The flow-equivalent
  // pool is exact when its tokens are (almost) always all held: then the inner network always has
  // T requests, which is what the FES assumes. Otherwise it releases tokens as if the holding time
  // were exponential while it is a sum of inner service times; over threads 1–8, disks 1–3, 2–12
  // clients and think times 0–100 ms that made X up to 1.4% high and the token wait up to 1.1% of
  // N short. The checks below keep to 1.5%.
  auto cfg = wb::Config::load(WB_SOURCE_DIR "/configs/sim.toml");
  REQUIRE(cfg.model().has_value());
  const wb::QueueNetwork& net = *cfg.model();
  struct Case {
    const char* set;
    int clients;
    double think;
    double x_eps;  // relative, throughput
    double q_eps;  // absolute, as a fraction of the clients: token wait and inner queues
  };
  // Token-bound (threads=1, the bug's case: the old answer was 166/s at 50 clients), tokens all
  // held (16 clients on 4 threads), and clients thinking, so that tokens are sometimes free.
  for (const Case& c :
       {Case{"disks=2,threads=1", 50, 0.0, 1e-9, 1e-9}, Case{"disks=2,threads=4", 16, 0.0, 1e-9, 1e-9},
        Case{"disks=2,threads=1", 6, 25.0, 0.015, 0.015}, Case{"disks=1,threads=2", 8, 20.0, 0.015, 0.015},
        Case{"disks=3,threads=4", 9, 10.0, 0.015, 0.015}}) {
    wb::Sample s = cfg.sample(c.set);
    const int tokens = static_cast<int>(net.centers[0].servers.eval(s));
    INFO(c.set << ", N = " << c.clients << ", Z = " << c.think);
    auto model = wb::solve_closed(net, s, c.clients, c.think);
    auto chain = closed_chain(c.think, chain_of(net, s), tokens, c.clients);
    INFO("model X = " << model.throughput * 1000 << "/s, chain X = " << chain.throughput * 1000 << "/s");
    REQUIRE(model.centers.size() == 4);  // nfsd, net, cpu, disk
    CHECK(model.throughput == Approx(chain.throughput).epsilon(c.x_eps));
    const double margin = c.q_eps * c.clients;
    CHECK(model.centers[0].queue_length == Approx(chain.waiting).margin(margin));
    CHECK(model.centers[0].utilization * tokens == Approx(chain.tokens).margin(margin));
    for (std::size_t k = 1; k < 4; ++k) {
      INFO("center " << model.centers[k].name);
      CHECK(model.centers[k].queue_length == Approx(chain.queue[k - 1]).margin(margin));
    }
  }
  // The whatif of the bug report: one thread serializes 1 ms of CPU and 0.8 × 15 ms of disk.
  auto one = wb::solve_closed(net, cfg.sample("disks=2,threads=1"), 50, 0);
  CHECK(one.throughput * 1000 == Approx(1000 / 13.0).epsilon(1e-9));
}

TEST_CASE("Little's law holds for the whole closed network and for every center") {
  auto cfg = wb::Config::load(WB_SOURCE_DIR "/configs/sim.toml");
  const wb::QueueNetwork& net = *cfg.model();
  for (const char* set :
       {"disks=1,threads=1", "disks=2,threads=4", "disks=4,threads=16", "disks=3,threads=100"}) {
    for (int n : {1, 7, 64, 500}) {
      for (double z : {0.0, 50.0}) {
        INFO(set << ", N = " << n << ", Z = " << z);
        auto r = wb::solve_closed(net, cfg.sample(set), n, z);
        CHECK(n == Approx(r.throughput * (r.response + z)).epsilon(1e-9));
        double customers = r.throughput * z, residence = 0;
        for (const auto& c : r.centers) {
          CHECK(c.queue_length == Approx(r.throughput * c.residence).epsilon(1e-9).margin(1e-12));
          CHECK(c.utilization <= 1 + 1e-12);
          customers += c.queue_length;
          residence += c.residence;
        }
        CHECK(customers == Approx(n).epsilon(1e-9));
        CHECK(residence == Approx(r.response).epsilon(1e-12));
      }
    }
  }
}
