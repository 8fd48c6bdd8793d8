#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/expr.hpp"

namespace wb {

class ConfigSection;

enum class ServiceDistribution { kExponential, kLognormal, kDeterministic };
enum class Discipline { kFcfs, kPs, kDelay };

const char* to_string(ServiceDistribution d);
const char* to_string(Discipline d);

// One service center of a queue network.
//
// A center of kind "pool" has no service time of its own: it is a set of `servers` tokens (a
// thread pool). A request takes a token before its first visit to a center declared `within` the
// pool and holds it until its last such visit ends — simultaneous possession [003 Fig. 2]: a
// thread is held while its request queues for and uses a disk.
struct ServiceCenter {
  std::string name;
  bool pool = false;
  Expr servers = Expr::constant(1);  // number of servers, an expression of factors
  Expr demand_ms = Expr::constant(0); // mean service time per visit, ms (not for pools)
  double visits = 1;                 // mean visits per request
  ServiceDistribution distribution = ServiceDistribution::kExponential;
  double cv = 1;                     // coefficient of variation, for lognormal
  Discipline discipline = Discipline::kFcfs;
  std::string within;                // name of the pool held while visiting this center, or ""
};

// An open queue network: the shared description behind the expectation model ([model]) and the
// simulated testbed ([sim]). Requests visit the non-pool centers in declaration order.
struct QueueNetwork {
  std::vector<ServiceCenter> centers;

  const ServiceCenter* find(const std::string& name) const;
};

// Parses the `center` array of `section` ([[sim.center]] / [[model.center]]), checking every
// expression against `factor_names`. Problems are InputErrors with file:line:key.
QueueNetwork parse_queue_network(ConfigSection& section, const std::vector<std::string>& factor_names);

}  // namespace wb
