#include "models/erlang.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace wb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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
  // B(0) = 1, B(k) = a·B(k-1) / (k + a·B(k-1)): stable for any c, unlike a^c/c! sums.
  double b = 1;
  for (int k = 1; k <= servers; ++k) b = offered * b / (k + offered * b);
  return b;
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
