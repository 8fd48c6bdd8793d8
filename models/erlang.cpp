#include "models/erlang.hpp"

#include <fmt/format.h>

#include <boost/math/special_functions/gamma.hpp>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace wb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Up to this many servers Erlang B runs its recurrence (at most this many steps); above it, the
// incomplete gamma function or a short series (see erlang_b), in time independent of c.
constexpr int kRecurrenceServers = 1000;
// Offered loads below c + kGammaBand·sqrt(c) use the incomplete gamma function.
constexpr double kGammaBand = 30;

void check_servers(int servers) {
  if (servers < 1) throw Error(fmt::format("queueing formula: {} servers (need at least 1)", servers));
}

void check_non_negative(const char* what, double v) {
  if (!(v >= 0) || !std::isfinite(v))
    throw Error(fmt::format("queueing formula: {} = {} (need a finite value >= 0)", what, v));
}

}  // namespace

double erlang_b(int servers, double offered) {
  check_servers(servers);
  check_non_negative("offered load", offered);
  if (offered == 0) return 0;
  const double c = servers;
  if (servers <= kRecurrenceServers) {
    // B(0) = 1, B(k) = a·B(k-1) / (k + a·B(k-1)): stable for any c, unlike a^c/c! sums.
    double b = 1;
    for (int k = 1; k <= servers; ++k) b = offered * b / (k + offered * b);
    return b;
  }
  if (offered < c + kGammaBand * std::sqrt(c)) {
    // B = P(X = c)/P(X <= c) for X ~ Poisson(a): the density over the regularized upper incomplete
    // gamma function at (c+1, a). In this band P(X <= c) >= e^-460, so the ratio never underflows
    // to 0/0; a density below the smallest double makes B = 0.
    return boost::math::gamma_p_derivative(c + 1, offered) / boost::math::gamma_q(c + 1, offered);
  }
  // a >= c + 30·sqrt(c), where P(X <= c) may underflow: sum 1/B = Σ_{j=0..c} c!/((c−j)!·a^j), whose
  // terms vanish within 1.5·sqrt(c) + 70 (docs/decisions.md#erlang-b-large-c).
  long double term = 1, sum = 1;
  const auto a = static_cast<long double>(offered);
  for (long long j = 1; j <= servers && term > sum * 0x1p-64L; ++j) {
    term *= static_cast<long double>(servers - j + 1) / a;
    sum += term;
  }
  return static_cast<double>(1 / sum);
}

double erlang_c(int servers, double offered) {
  check_servers(servers);
  check_non_negative("offered load", offered);
  if (offered >= servers) return 1;
  double b = erlang_b(servers, offered);
  // C = c·B / (c − a·(1 − B)).
  return servers * b / (servers - offered * (1 - b));
}

MmcResult mmc(int servers, double arrival_rate, double service_time) {
  check_servers(servers);
  check_non_negative("arrival rate", arrival_rate);
  check_non_negative("service time", service_time);
  MmcResult r;
  double a = arrival_rate * service_time;
  r.utilization = a / servers;
  r.stable = r.utilization < 1;
  r.p_wait = erlang_c(servers, a);
  if (!r.stable) {
    r.wait = r.response = r.queue_length = r.in_system = kInf;
    return r;
  }
  // W_q = C(c, a)·S / (c − a).
  r.wait = service_time > 0 ? r.p_wait * service_time / (servers - a) : 0;
  r.response = r.wait + service_time;
  r.queue_length = arrival_rate * r.wait;
  r.in_system = arrival_rate * r.response;
  return r;
}

double allen_cunneen_wait(int servers, double arrival_rate, double service_time, double service_scv) {
  check_non_negative("service scv", service_scv);
  MmcResult m = mmc(servers, arrival_rate, service_time);
  if (!m.stable) return kInf;
  return m.wait * (1 + service_scv) / 2;
}

}  // namespace wb
