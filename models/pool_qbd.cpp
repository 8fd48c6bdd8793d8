#include "models/pool_qbd.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <tuple>

#include "core/error.hpp"

namespace wb {

namespace {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::RowVectorXd;

// Every way of placing n requests at K stations, and the index of each placement.
struct Level {
  std::vector<std::vector<int>> states;
  std::map<std::vector<int>, Eigen::Index> index;
};

void place(int left, std::size_t k, std::vector<int>& cur, Level& level) {
  if (k + 1 == cur.size()) {
    cur[k] = left;
    level.index[cur] = static_cast<Eigen::Index>(level.states.size());
    level.states.push_back(cur);
    return;
  }
  for (int j = left; j >= 0; --j) {
    cur[k] = j;
    place(left - j, k + 1, cur, level);
  }
}

std::size_t phases(int n, std::size_t k) {  // C(n + k − 1, k − 1), saturating
  double c = 1;
  for (std::size_t i = 1; i < k; ++i)
    c = c * static_cast<double>(n + static_cast<int>(i)) / static_cast<double>(i);
  return c > 1e12 ? static_cast<std::size_t>(1e12) : static_cast<std::size_t>(std::llround(c));
}

// The routing of one request through the stations, as probabilities.
struct Routing {
  std::vector<double> enter;              // first station visited (unconditional; may sum below 1)
  std::vector<std::vector<double>> next;  // next[k][j]: after a final visit at k, go to j > k
  std::vector<double> leave;              // after a final visit at k, release the token
  std::vector<double> final_rate;         // per-server completion rate that ends the visits at k
  double skip = 1;                        // probability of visiting no station
};

Routing route(const std::vector<PoolStation>& st) {
  const std::size_t k_n = st.size();
  std::vector<double> p(k_n);
  Routing r;
  r.final_rate.resize(k_n);
  for (std::size_t k = 0; k < k_n; ++k) {
    p[k] = std::min(1.0, st[k].visits);
    double revisit = st[k].visits > 1 ? 1 - 1 / st[k].visits : 0;
    r.final_rate[k] = (1 - revisit) / st[k].service;
  }
  // Probability that the first station visited at or after `from` is j (or none).
  auto first_from = [&](std::size_t from, std::vector<double>* to) {
    double none = 1;
    to->assign(k_n, 0.0);
    for (std::size_t j = from; j < k_n; ++j) {
      (*to)[j] = none * p[j];
      none *= 1 - p[j];
    }
    return none;
  };
  r.skip = first_from(0, &r.enter);
  r.next.resize(k_n);
  r.leave.resize(k_n);
  for (std::size_t k = 0; k < k_n; ++k) r.leave[k] = first_from(k + 1, &r.next[k]);
  return r;
}

double rate_at(const PoolStation& s, int n, const Routing& r, std::size_t k) {
  int busy = s.servers == 0 ? n : std::min(n, s.servers);
  return busy * r.final_rate[k];
}

// Latouche–Ramaswami logarithmic reduction for G, then R = A0 (−A1 − A0 G)^{-1}.
Matrix rate_matrix(const Matrix& a0, const Matrix& a1, const Matrix& a2) {
  const Eigen::Index m = a1.rows();
  Matrix id = Matrix::Identity(m, m);
  Eigen::PartialPivLU<Matrix> neg_a1(-a1);
  Matrix h = neg_a1.solve(a0), l = neg_a1.solve(a2);
  Matrix g = l, t = h;
  for (int it = 0; it < 200; ++it) {
    Matrix u = h * l + l * h;
    Eigen::PartialPivLU<Matrix> inv(id - u);
    Matrix h2 = inv.solve(h * h);
    Matrix l2 = inv.solve(l * l);
    g += t * l2;
    t = t * h2;
    h = std::move(h2);
    l = std::move(l2);
    // G is stochastic for a stable QBD; stop when its rows sum to 1 or nothing is left to add.
    if ((Eigen::VectorXd::Ones(m) - g.rowwise().sum()).cwiseAbs().maxCoeff() < 1e-13) break;
    if (t.cwiseAbs().maxCoeff() < 1e-300) break;
  }
  Matrix u = -a1 - a0 * g;
  return u.transpose().partialPivLu().solve(a0.transpose()).transpose();  // A0·U^{-1}
}

// Every argument of solve_pool_qbd, compared exactly: a key collides only with the same solve.
struct QbdKey {
  int tokens = 0;
  std::vector<PoolStation> stations;
  double arrival_rate = 0;  // validated > 0, so never NaN
  std::size_t max_phases = 0;

  bool operator<(const QbdKey& o) const {
    auto fields = [](const PoolStation& s) { return std::tie(s.service, s.servers, s.visits); };
    auto station_less = [&](const PoolStation& a, const PoolStation& b) { return fields(a) < fields(b); };
    if (std::tie(tokens, arrival_rate, max_phases) != std::tie(o.tokens, o.arrival_rate, o.max_phases))
      return std::tie(tokens, arrival_rate, max_phases) < std::tie(o.tokens, o.arrival_rate, o.max_phases);
    return std::lexicographical_compare(stations.begin(), stations.end(), o.stations.begin(),
                                        o.stations.end(), station_less);
  }
};

// Least-recently-used memo of solutions. A hit moves the entry to the front; an insert beyond
// the capacity drops the entry at the back.
class QbdMemo {
 public:
  static constexpr std::size_t kCapacity = 4096;  // ~300 bytes each for a pool of 2 stations

  std::optional<PoolModel::State> find(const QbdKey& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      ++misses_;
      return std::nullopt;
    }
    ++hits_;
    order_.splice(order_.begin(), order_, it->second.age);
    return it->second.state;
  }

  void insert(QbdKey key, const PoolModel::State& state) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Two threads may have solved the same key at once: the first insert stands (both are equal).
    auto [it, fresh] = entries_.try_emplace(std::move(key), Entry{state, {}});
    if (!fresh) return;
    order_.push_front(&it->first);
    it->second.age = order_.begin();
    if (entries_.size() > kCapacity) {
      auto oldest = entries_.find(*order_.back());
      order_.pop_back();
      entries_.erase(oldest);
    }
  }

  PoolQbdMemoStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {hits_, misses_, entries_.size(), kCapacity};
  }

 private:
  struct Entry {
    PoolModel::State state;
    std::list<const QbdKey*>::iterator age;  // its place in order_
  };

  std::mutex mutex_;
  std::map<QbdKey, Entry> entries_;    // GUARDED_BY(mutex_)
  std::list<const QbdKey*> order_;     // GUARDED_BY(mutex_): keys of entries_, most recently used first
  std::size_t hits_ = 0, misses_ = 0;  // GUARDED_BY(mutex_)
};

QbdMemo& memo() {
  static QbdMemo m;
  return m;
}

}  // namespace

PoolQbdMemoStats pool_qbd_memo_stats() { return memo().stats(); }

std::optional<PoolModel::State> solve_pool_qbd(int tokens, const std::vector<PoolStation>& stations,
                                               double arrival_rate, std::size_t max_phases) {
  if (tokens < 1) throw Error(fmt::format("pool QBD: {} tokens (need at least 1)", tokens));
  if (stations.empty()) throw Error("pool QBD: no station within the pool");
  for (const auto& s : stations) {
    if (!(s.service > 0) || !(s.visits > 0) || s.servers < 0)
      throw Error("pool QBD: station needs service > 0, visits > 0, servers >= 0");
  }
  if (!(arrival_rate > 0)) throw Error(fmt::format("pool QBD: arrival rate {} (need > 0)", arrival_rate));
  const std::size_t k_n = stations.size();
  if (phases(tokens, k_n) > max_phases) return std::nullopt;
  QbdKey key{tokens, stations, arrival_rate, max_phases};
  if (auto known = memo().find(key)) return known;
  const Routing r = route(stations);
  const double lambda_in = arrival_rate * (1 - r.skip);  // requests that need a token

  std::vector<Level> levels(static_cast<std::size_t>(tokens) + 1);
  for (int n = 0; n <= tokens; ++n) {
    std::vector<int> cur(k_n, 0);
    place(n, 0, cur, levels[static_cast<std::size_t>(n)]);
  }
  auto size = [&](int n) {
    return static_cast<Eigen::Index>(levels[static_cast<std::size_t>(n)].states.size());
  };

  // Blocks of the generator: up (arrival takes a token), down (a release with nobody waiting),
  // local (moves between stations), and at full occupancy the release-and-reenter block A2.
  std::vector<Matrix> up(static_cast<std::size_t>(tokens) + 1), down(static_cast<std::size_t>(tokens) + 1),
      local(static_cast<std::size_t>(tokens) + 1);
  const Level& full = levels.back();
  const Eigen::Index m = size(tokens);
  Matrix a2 = Matrix::Zero(m, m);
  for (int n = 0; n <= tokens; ++n) {
    const Level& lv = levels[static_cast<std::size_t>(n)];
    auto& u = up[static_cast<std::size_t>(n)];
    auto& d = down[static_cast<std::size_t>(n)];
    auto& l = local[static_cast<std::size_t>(n)];
    u = n < tokens ? Matrix::Zero(size(n), size(n + 1)) : Matrix(lambda_in * Matrix::Identity(m, m));
    d = n > 0 ? Matrix::Zero(size(n), size(n - 1)) : Matrix();
    l = Matrix::Zero(size(n), size(n));
    for (Eigen::Index i = 0; i < size(n); ++i) {
      const auto& s = lv.states[static_cast<std::size_t>(i)];
      if (n < tokens) {
        for (std::size_t j = 0; j < k_n; ++j) {
          if (r.enter[j] == 0) continue;
          auto t = s;
          ++t[j];
          u(i, levels[static_cast<std::size_t>(n) + 1].index.at(t)) += arrival_rate * r.enter[j];
        }
      }
      for (std::size_t k = 0; k < k_n; ++k) {
        if (s[k] == 0) continue;
        double rate = rate_at(stations[k], s[k], r, k);
        for (std::size_t j = k + 1; j < k_n; ++j) {
          if (r.next[k][j] == 0) continue;
          auto t = s;
          --t[k];
          ++t[j];
          l(i, lv.index.at(t)) += rate * r.next[k][j];
        }
        if (r.leave[k] == 0) continue;
        auto t = s;
        --t[k];
        d(i, levels[static_cast<std::size_t>(n) - 1].index.at(t)) += rate * r.leave[k];
        if (n == tokens) {  // with a waiting line, the first waiter takes the released token
          for (std::size_t j = 0; j < k_n; ++j) {
            if (r.enter[j] == 0) continue;
            auto e = t;
            ++e[j];
            a2(i, full.index.at(e)) += rate * r.leave[k] * r.enter[j] / (1 - r.skip);
          }
        }
      }
    }
    // Diagonal: minus every outgoing rate (self-loops of a2 cancel in a1's diagonal below).
    for (Eigen::Index i = 0; i < size(n); ++i) {
      double out = u.row(i).sum() + l.row(i).sum() + (n > 0 ? d.row(i).sum() : 0.0);
      l(i, i) -= out;
    }
  }
  // Homogeneous levels (someone waiting): A0 = λ'I and A1 = the full level's local block — its
  // diagonal already holds −(λ' + moves + releases), and releases now go to A2 instead of down.
  Matrix rmat = rate_matrix(up.back(), local.back(), a2);

  // Linear level reduction of the boundary levels 0..N_P: π_n = π_{n−1}·B_n.
  std::vector<Matrix> b(static_cast<std::size_t>(tokens) + 1);
  Matrix s = local.back() + rmat * a2;
  for (int n = tokens; n >= 1; --n) {
    // B_n = Up_{n−1}·(−S_n)^{-1}
    b[static_cast<std::size_t>(n)] =
        (-s).transpose().partialPivLu().solve(up[static_cast<std::size_t>(n) - 1].transpose()).transpose();
    if (n > 1)
      s = local[static_cast<std::size_t>(n) - 1] +
          b[static_cast<std::size_t>(n)] * down[static_cast<std::size_t>(n)];
  }
  std::vector<Vector> pi(static_cast<std::size_t>(tokens) + 1);
  pi[0] = Vector::Ones(1);
  for (int n = 1; n <= tokens; ++n)
    pi[static_cast<std::size_t>(n)] = pi[static_cast<std::size_t>(n) - 1] * b[static_cast<std::size_t>(n)];
  Matrix id = Matrix::Identity(m, m);
  // Row vectors x·(I−R)^{-1}: solve (I−R)ᵀ yᵀ = xᵀ.
  auto times_inverse = [&](const Vector& x) -> Vector {
    return (id - rmat).transpose().partialPivLu().solve(x.transpose()).transpose();
  };
  Vector tail = times_inverse(pi.back() * rmat);  // Σ_{w≥1} π_{N_P} R^w
  Vector tail_excess = times_inverse(tail);       // Σ_{w≥1} w·π_{N_P} R^w
  double norm = tail.sum();
  double busy = tail.sum() * tokens;
  std::vector<double> q(k_n, 0.0);
  for (std::size_t k = 0; k < k_n; ++k) {
    for (Eigen::Index i = 0; i < m; ++i) q[k] += tail(i) * full.states[static_cast<std::size_t>(i)][k];
  }
  for (int n = 0; n <= tokens; ++n) {
    const auto& p = pi[static_cast<std::size_t>(n)];
    norm += p.sum();
    busy += p.sum() * n;
    const Level& lv = levels[static_cast<std::size_t>(n)];
    for (std::size_t k = 0; k < k_n; ++k) {
      for (Eigen::Index i = 0; i < p.size(); ++i) q[k] += p(i) * lv.states[static_cast<std::size_t>(i)][k];
    }
  }
  PoolModel::State out;
  out.stable = true;
  out.tokens_busy = busy / norm;
  out.token_wait = tail_excess.sum() / norm / arrival_rate;
  for (std::size_t k = 0; k < k_n; ++k) {
    out.queue.push_back(q[k] / norm);
    out.residence.push_back(q[k] / norm / arrival_rate);
  }
  memo().insert(std::move(key), out);
  return out;
}

}  // namespace wb
