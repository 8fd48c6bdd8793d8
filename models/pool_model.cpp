#include "models/pool_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "models/erlang.hpp"

namespace wb {

PoolModel::PoolModel(int tokens, std::vector<ClosedCenter> inner, double holding_scv)
    : tokens_(tokens), inner_(std::move(inner)), holding_scv_(holding_scv) {
  if (tokens_ < 1) throw Error(fmt::format("pool model: {} tokens (need at least 1)", tokens_));
  if (!(holding_scv_ >= 0) || !std::isfinite(holding_scv_)) {
    throw Error(fmt::format("pool model: holding-time scv {} (need a finite value >= 0)", holding_scv_));
  }
  if (inner_.empty()) throw Error("pool model: no center within the pool");
  curve_ = population_curve(inner_, std::min(tokens_, pool_curve_limit(inner_.size())));
  all_delays_ = std::all_of(inner_.begin(), inner_.end(),
                            [](const ClosedCenter& c) { return c.kind == ClosedCenterKind::kDelay; });
  capacity_ = curve_.throughput.back();
  if (all_delays_ && curve_.throughput.size() <= static_cast<std::size_t>(tokens_)) {
    // Beyond the curve X(n) = n/D still holds exactly: N_P tokens complete N_P/D.
    double holding = 0;
    for (const auto& c : inner_) holding += c.demand;
    capacity_ = holding > 0 ? tokens_ / holding : 0;
  }
  if (!(capacity() > 0)) throw Error("pool model: the centers within the pool have no demand");
}

int pool_curve_limit(std::size_t inner_centers) {
  return std::max(100, static_cast<int>(2000 / std::max<std::size_t>(inner_centers, 1)));
}

double PoolModel::contention_free_share() const {
  double holding = 0;
  for (const auto& c : inner_) holding += c.demand;
  return std::min(1.0, capacity() * holding / tokens_);
}

PoolModel::State PoolModel::all_delays_at(double arrival_rate) const {
  // Every token held is a request in service at the delays: M/M/N_P with service time D.
  double holding = 0;
  for (const auto& c : inner_) holding += c.demand;
  State s;
  s.residence.assign(inner_.size(), 0.0);
  s.queue.assign(inner_.size(), 0.0);
  const double through = std::min(arrival_rate, capacity());
  for (std::size_t k = 0; k < inner_.size(); ++k) {
    s.residence[k] = inner_[k].demand;
    s.queue[k] = through * inner_[k].demand;
  }
  s.tokens_busy = through * holding;
  MmcResult m = mmc(tokens_, arrival_rate, holding);
  s.stable = m.stable;
  // As for the birth-death chain below: the holding-time variability scales the wait (κ = 1 here).
  s.token_wait = m.stable ? m.wait * (1 + (holding_scv_ - 1) / 2) : std::numeric_limits<double>::infinity();
  return s;
}

PoolModel::State PoolModel::at(double arrival_rate) const {
  if (!(arrival_rate >= 0)) throw Error(fmt::format("pool model: arrival rate {} (need >= 0)", arrival_rate));
  // Levels 0..m come from the curve; with more tokens than it covers, `beyond` = N_P − m levels
  // more complete at X(m) (see the header).
  const std::size_t m = curve_.throughput.size() - 1;
  const auto beyond = static_cast<std::size_t>(tokens_) - m;
  if (beyond > 0 && all_delays_) return all_delays_at(arrival_rate);
  // Per extra request inside the pool, the growth of each inner queue.
  std::vector<double> growth(inner_.size(), 0.0);
  if (beyond > 0) {
    for (std::size_t k = 0; k < inner_.size(); ++k) growth[k] = curve_.queue[k][m] - curve_.queue[k][m - 1];
  }
  State s;
  s.residence.assign(inner_.size(), 0.0);
  s.queue.assign(inner_.size(), 0.0);
  if (arrival_rate >= capacity()) {
    s.stable = false;
    s.token_wait = std::numeric_limits<double>::infinity();
    s.tokens_busy = tokens_;
    for (std::size_t k = 0; k < inner_.size(); ++k) {
      s.queue[k] = curve_.queue[k][m] + static_cast<double>(beyond) * growth[k];
      s.residence[k] = s.queue[k] / capacity();
    }
    return s;
  }
  s.stable = true;
  // A vanishing rate is the light-load limit; keep it positive so the ratios below are defined.
  double lambda = std::max(arrival_rate, capacity() * 1e-12);
  // Birth-death chain on n = requests holding or waiting for a token: π(n) ∝ Π_{i≤n} λ/X(min(i,N_P)).
  // Work in logs (the products span many orders of magnitude), then add the geometric tail
  // n > m, whose ratio is r = λ/X(m) < 1, in closed form.
  std::vector<long double> log_t(m + 1, 0.0L);
  for (std::size_t n = 1; n <= m; ++n) {
    log_t[n] = log_t[n - 1] + std::log(static_cast<long double>(lambda) / curve_.throughput[n]);
  }
  long double top = *std::max_element(log_t.begin(), log_t.end());
  std::vector<long double> t(m + 1);
  for (std::size_t n = 0; n <= m; ++n) t[n] = std::exp(log_t[n] - top);
  long double r = static_cast<long double>(lambda / capacity());
  const auto b = static_cast<long double>(beyond);
  long double tail = t[m] * r / (1 - r);  // Σ_{n>m} π(n), unnormalized
  // Σ_{n>m} min(n − m, N_P − m)·π(n): the tokens held beyond m, r(1 − r^b)/(1 − r)² per t[m].
  long double held_beyond = beyond > 0 ? t[m] * r * (1 - std::pow(r, b)) / ((1 - r) * (1 - r)) : 0.0L;
  long double tail_excess = t[m] * std::pow(r, b) * r / ((1 - r) * (1 - r));  // Σ_{n>N_P} (n − N_P)·π(n)
  long double norm = tail;
  long double busy = tail * static_cast<long double>(m) + held_beyond;
  std::vector<long double> q(inner_.size(), 0.0L);
  for (std::size_t k = 0; k < inner_.size(); ++k) q[k] = tail * curve_.queue[k][m] + held_beyond * growth[k];
  for (std::size_t n = 0; n <= m; ++n) {
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
