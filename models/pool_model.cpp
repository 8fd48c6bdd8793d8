#include "models/pool_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace wb {

PoolModel::PoolModel(int tokens, std::vector<ClosedCenter> inner, double holding_scv)
    : tokens_(tokens), inner_(std::move(inner)), holding_scv_(holding_scv) {
  if (tokens_ < 1) throw Error(fmt::format("pool model: {} tokens (need at least 1)", tokens_));
  if (!(holding_scv_ >= 0) || !std::isfinite(holding_scv_)) {
    throw Error(fmt::format("pool model: holding-time scv {} (need a finite value >= 0)", holding_scv_));
  }
  if (inner_.empty()) throw Error("pool model: no center within the pool");
  curve_ = population_curve(inner_, tokens_);
  if (!(capacity() > 0)) throw Error("pool model: the centers within the pool have no demand");
}

double PoolModel::contention_free_share() const {
  double holding = 0;
  for (const auto& c : inner_) holding += c.demand;
  return std::min(1.0, capacity() * holding / tokens_);
}

PoolModel::State PoolModel::at(double arrival_rate) const {
  if (!(arrival_rate >= 0)) throw Error(fmt::format("pool model: arrival rate {} (need >= 0)", arrival_rate));
  const auto n_p = static_cast<std::size_t>(tokens_);
  State s;
  s.residence.assign(inner_.size(), 0.0);
  s.queue.assign(inner_.size(), 0.0);
  if (arrival_rate >= capacity()) {
    s.stable = false;
    s.token_wait = std::numeric_limits<double>::infinity();
    s.tokens_busy = tokens_;
    for (std::size_t k = 0; k < inner_.size(); ++k) {
      s.queue[k] = curve_.queue[k][n_p];
      s.residence[k] = s.queue[k] / capacity();
    }
    return s;
  }
  s.stable = true;
  // A vanishing rate is the light-load limit; keep it positive so the ratios below are defined.
  double lambda = std::max(arrival_rate, capacity() * 1e-12);
  // Birth-death chain on n = requests holding or waiting for a token: π(n) ∝ Π_{i≤n} λ/X(min(i,N_P)).
  // Work in logs (the products span many orders of magnitude), then add the geometric tail
  // n > N_P, whose ratio is r = λ/X(N_P) < 1, in closed form.
  std::vector<long double> log_t(n_p + 1, 0.0L);
  for (std::size_t n = 1; n <= n_p; ++n) {
    log_t[n] = log_t[n - 1] + std::log(static_cast<long double>(lambda) / curve_.throughput[n]);
  }
  long double top = *std::max_element(log_t.begin(), log_t.end());
  std::vector<long double> t(n_p + 1);
  for (std::size_t n = 0; n <= n_p; ++n) t[n] = std::exp(log_t[n] - top);
  long double r = static_cast<long double>(lambda / capacity());
  long double tail = t[n_p] * r / (1 - r);                     // Σ_{n>N_P} π(n), unnormalized
  long double tail_excess = t[n_p] * r / ((1 - r) * (1 - r));  // Σ_{n>N_P} (n − N_P)·π(n)
  long double norm = tail;
  long double busy = tail * tokens_;
  std::vector<long double> q(inner_.size(), 0.0L);
  for (std::size_t k = 0; k < inner_.size(); ++k) q[k] = tail * curve_.queue[k][n_p];
  for (std::size_t n = 0; n <= n_p; ++n) {
    norm += t[n];
    busy += t[n] * static_cast<long double>(n);
    for (std::size_t k = 0; k < inner_.size(); ++k) q[k] += t[n] * curve_.queue[k][n];
  }
  s.tokens_busy = static_cast<double>(busy / norm);
  // Little's law on the waiting line and on each inner center.
  // The holding-time variability correction described in the header.
  double variability = 1 + contention_free_share() * (holding_scv_ - 1) / 2;
  s.token_wait = static_cast<double>(tail_excess / norm) / lambda * variability;
  for (std::size_t k = 0; k < inner_.size(); ++k) {
    s.queue[k] = static_cast<double>(q[k] / norm) * (arrival_rate / lambda);
    s.residence[k] = static_cast<double>(q[k] / norm) / lambda;
  }
  if (arrival_rate < lambda) s.tokens_busy *= arrival_rate / lambda;
  return s;
}

}  // namespace wb
