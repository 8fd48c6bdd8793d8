#include "ctmc.hpp"

#include <algorithm>

namespace wb::test {

Eigen::VectorXd stationary(const Eigen::MatrixXd& generator) {
  const Eigen::Index n = generator.rows();
  // Solve Qᵀπ = 0 with the last equation replaced by the normalization Σπ = 1.
  Eigen::MatrixXd a = generator.transpose();
  a.row(n - 1).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
  b(n - 1) = 1;
  return a.fullPivLu().solve(b);
}

std::vector<double> mmc_distribution(int servers, double arrival_rate, double service_time, int capacity) {
  const Eigen::Index n = capacity + 1;
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (i + 1 < n) q(i, i + 1) = arrival_rate;
    if (i > 0) q(i, i - 1) = static_cast<double>(std::min<Eigen::Index>(i, servers)) / service_time;
    q(i, i) = -q.row(i).sum();
  }
  Eigen::VectorXd pi = stationary(q);
  return std::vector<double>(pi.data(), pi.data() + pi.size());
}

namespace {

void compositions(int left, std::size_t k, std::vector<int>& cur, std::vector<std::vector<int>>& out) {
  if (k + 1 == cur.size()) {
    cur[k] = left;
    out.push_back(cur);
    return;
  }
  for (int j = 0; j <= left; ++j) {
    cur[k] = j;
    compositions(left - j, k + 1, cur, out);
  }
}

}  // namespace

std::map<std::vector<int>, double> closed_cyclic(const std::vector<double>& service,
                                                 const std::vector<int>& servers, int population) {
  std::vector<std::vector<int>> states;
  std::vector<int> cur(service.size(), 0);
  compositions(population, 0, cur, states);
  std::map<std::vector<int>, Eigen::Index> index;
  for (std::size_t i = 0; i < states.size(); ++i) index[states[i]] = static_cast<Eigen::Index>(i);
  const auto n = static_cast<Eigen::Index>(states.size());
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
  for (const auto& s : states) {
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (s[k] == 0) continue;
      int busy = servers[k] == 0 ? s[k] : std::min(s[k], servers[k]);
      auto t = s;
      --t[k];
      ++t[(k + 1) % s.size()];
      q(index[s], index[t]) += busy / service[k];
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) q(i, i) = -q.row(i).sum();
  Eigen::VectorXd pi = stationary(q);
  std::map<std::vector<int>, double> out;
  for (const auto& s : states) out[s] = pi(index[s]);
  return out;
}

}  // namespace wb::test
