#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/expr.hpp"
#include "core/factor.hpp"
#include "core/sample.hpp"

namespace wb {

class ConfigSection;

enum class ServiceDistribution { kExponential, kLognormal, kDeterministic };
enum class Discipline { kFcfs, kPs, kDelay };

const char* to_string(ServiceDistribution d);
const char* to_string(Discipline d);

// One service center of a queue network. A "pool" is a set of `servers` tokens (a thread pool) with no
// service time: a request takes a token before its first visit to a center declared `within` the pool
// and holds it until its last such visit ends (simultaneous possession [003 Fig. 2]).
struct ServiceCenter {
  std::string name;
  bool pool = false;
  Expr servers = Expr::constant(1);    // number of servers, an expression of factors
  Expr demand_ms = Expr::constant(0);  // mean service time per visit, ms (not for pools)
  double visits = 1;                   // mean visits per request
  // [model] only: visits given as an expression of factors and workload attributes
  // ("{disk_visits}"); QueueNetwork::resolved() evaluates it into `visits` for one sample.
  std::optional<Expr> visits_expr;
  ServiceDistribution distribution = ServiceDistribution::kExponential;
  double cv = 1;  // coefficient of variation, for lognormal
  Discipline discipline = Discipline::kFcfs;
  std::string within;  // name of the pool held while visiting this center, or ""
};

// A number per level of a categorical (workload) factor, usable in the network's expressions as
// {name}, e.g. the fraction of a mix's requests that touch a disk:
// `[model.attributes.mix] disk_visits = { db_tp = 1.0, web = 0.9 }` (or [sim.attributes.mix]).
struct WorkloadAttribute {
  std::string factor;  // the categorical factor whose level selects the value
  std::string name;    // usable as {name}; never a factor's name
  std::map<std::string, double> by_level;
  std::string where;  // "FILE:LINE:model.attributes.FACTOR.NAME", for errors
};

// [model.storage]: a trace replayed through the cache and disk modules [001 §III-C.6-7] gives the
// expressions {cache_hit_rate}, {disk_visits} and {disk_ms} (docs/storage.md says what each is).
// Core only parses it; experiment/expectation.cpp evaluates it.
struct StorageSpec {
  std::string trace;  // CSV trace (models/io_trace.hpp), absolute path; may name factors ("{mix}.csv")
  std::vector<std::string> trace_factors;  // the factors `trace` names
  Expr cache_mb;                           // cache size in MiB, an expression of factors
  std::uint64_t block_bytes = 4096;
  std::string policy = "lru";
  std::string disk;  // disk calibration JSON, absolute path, or ""; may name factors ("{disk}.json")
  std::vector<std::string> disk_factors;  // the factors `disk` names
  std::string classifier;                 // `workbench classify calibrate`'s JSON, absolute path, or ""
  double warm_fraction = 0.5;             // share of the trace replayed only to fill the cache
  std::string where;                      // "FILE:LINE:model.storage", for errors
};
inline const std::vector<std::string>& storage_attribute_names() {
  static const std::vector<std::string> kNames{"cache_hit_rate", "disk_visits", "disk_ms"};
  return kNames;
}

// An open queue network: the shared description behind the expectation model ([model]) and the
// simulated testbed ([sim]). Requests visit the non-pool centers in declaration order.
struct QueueNetwork {
  std::vector<ServiceCenter> centers;
  std::vector<WorkloadAttribute> attributes;
  std::optional<StorageSpec> storage;  // [model.storage]; its attributes are added by the caller

  const ServiceCenter* find(const std::string& name) const;

  // `sample` plus every attribute's value at the sample's level of its factor (as if it were a
  // numeric factor), so expressions that name attributes evaluate. InputError naming the
  // attribute's FILE:LINE:KEY if the sample's level has no value.
  Sample with_attributes(const Sample& sample) const;
  // A copy for one sample: every visits expression evaluated into `visits` (with_attributes()
  // applied first). InputError naming the center if visits is not positive for this sample.
  QueueNetwork resolved(const Sample& sample) const;
  // The attribute names (for checking expressions).
  std::vector<std::string> attribute_names() const;
};

// Parses the `center` array of `section` ([[sim.center]] / [[model.center]]) and checks every
// expression for every combination of the levels it depends on: servers a whole number >= 1,
// service_ms and visits positive. Problems are InputErrors with file:line:key.
QueueNetwork parse_queue_network(ConfigSection& section, const std::vector<Factor>& factors);

}  // namespace wb
