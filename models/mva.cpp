#include "models/mva.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace wb {

void check_closed_model(const std::vector<ClosedCenter>& centers, double think_time) {
  for (const auto& c : centers) {
    if (!(c.demand >= 0) || !std::isfinite(c.demand)) {
      throw Error(fmt::format("closed model: center '{}' has demand {} (need a finite value >= 0)", c.name,
                              c.demand));
    }
    if (c.servers < 1)
      throw Error(
          fmt::format("closed model: center '{}' has {} servers (need at least 1)", c.name, c.servers));
  }
  if (!(think_time >= 0) || !std::isfinite(think_time)) {
    throw Error(fmt::format("closed model: think time {} (need a finite value >= 0)", think_time));
  }
}

namespace {

// Seidmann's split of each center: a queueing part (single server, demand D/c) and a pure delay
// part (D·(c−1)/c, or all of D for a delay center, and for a center whose c >= N servers leave
// none of the N customers waiting).
struct MvaSplit {
  double queue_demand = 0;
  double delay_demand = 0;
  bool queues = false;
};

std::vector<MvaSplit> split(const std::vector<ClosedCenter>& centers, int population) {
  std::vector<MvaSplit> s;
  for (const auto& c : centers) {
    if (c.kind == ClosedCenterKind::kDelay || c.servers >= population) {
      s.push_back({0, c.demand, false});
    } else {
      double per_server = c.demand / c.servers;
      s.push_back({per_server, c.demand - per_server, true});
    }
  }
  return s;
}

// One MVA step: given the queue lengths seen by an arriving customer (of the queueing parts),
// residence times, throughput at population n, and the new queue lengths of the queueing parts.
ClosedResult step(const std::vector<ClosedCenter>& centers, const std::vector<MvaSplit>& parts,
                  const std::vector<double>& seen, int n, double think_time,
                  std::vector<double>* queue_part) {
  ClosedResult r;
  r.population = n;
  std::vector<double> queue_residence(centers.size());
  for (std::size_t k = 0; k < centers.size(); ++k) {
    queue_residence[k] = parts[k].queue_demand * (1 + seen[k]);
    ClosedCenterResult c;
    c.name = centers[k].name;
    c.residence = queue_residence[k] + parts[k].delay_demand;
    r.response += c.residence;
    r.centers.push_back(std::move(c));
  }
  double cycle = r.response + think_time;
  r.throughput = cycle > 0 ? n / cycle : 0;
  for (std::size_t k = 0; k < centers.size(); ++k) {
    auto& c = r.centers[k];
    c.queue_length = r.throughput * c.residence;
    c.utilization = centers[k].kind == ClosedCenterKind::kDelay
                        ? 0
                        : r.throughput * centers[k].demand / centers[k].servers;
    (*queue_part)[k] = r.throughput * queue_residence[k];
  }
  return r;
}

ClosedResult empty_result(const std::vector<ClosedCenter>& centers) {
  ClosedResult r;
  // With no customers nothing queues: report the residence a lone customer would see.
  for (const auto& c : centers) r.centers.push_back({c.name, c.demand, 0, 0});
  r.response = 0;
  for (const auto& c : r.centers) r.response += c.residence;
  return r;
}

}  // namespace

std::vector<ClosedResult> mva_exact_all(const std::vector<ClosedCenter>& centers, int population,
                                        double think_time) {
  check_closed_model(centers, think_time);
  check_population(population);
  auto parts = split(centers, population);
  std::vector<double> queue(centers.size(), 0.0), next(centers.size(), 0.0);
  std::vector<ClosedResult> all;
  all.reserve(static_cast<std::size_t>(population));
  for (int n = 1; n <= population; ++n) {
    // Arrival theorem: a customer arriving at population n sees the time-averaged state at n−1.
    all.push_back(step(centers, parts, queue, n, think_time, &next));
    queue.swap(next);
  }
  return all;
}

ClosedResult mva_exact(const std::vector<ClosedCenter>& centers, int population, double think_time) {
  if (population == 0) {
    check_closed_model(centers, think_time);
    return empty_result(centers);
  }
  auto all = mva_exact_all(centers, population, think_time);
  return std::move(all.back());
}

ClosedResult mva_schweitzer(const std::vector<ClosedCenter>& centers, int population, double think_time,
                            const SchweitzerOptions& options) {
  check_closed_model(centers, think_time);
  check_population(population);
  if (population == 0) return empty_result(centers);
  auto parts = split(centers, population);
  std::size_t queueing = static_cast<std::size_t>(
      std::count_if(parts.begin(), parts.end(), [](const MvaSplit& s) { return s.queues; }));
  std::vector<double> queue(centers.size(), 0.0), next(centers.size(), 0.0), seen(centers.size(), 0.0);
  if (options.initial_queue.empty()) {
    for (std::size_t k = 0; k < centers.size(); ++k) {
      if (parts[k].queues) queue[k] = static_cast<double>(population) / static_cast<double>(queueing);
    }
  } else {
    if (options.initial_queue.size() != queueing) {
      throw Error(fmt::format("Schweitzer MVA: {} initial queue lengths for {} queueing centers",
                              options.initial_queue.size(), queueing));
    }
    std::size_t i = 0;
    for (std::size_t k = 0; k < centers.size(); ++k) {
      if (parts[k].queues) queue[k] = options.initial_queue[i++];
    }
  }
  double shrink = static_cast<double>(population - 1) / population;
  ClosedResult r;
  r.converged = false;
  for (int it = 1; it <= options.max_iterations; ++it) {
    for (std::size_t k = 0; k < centers.size(); ++k) seen[k] = shrink * queue[k];
    r = step(centers, parts, seen, population, think_time, &next);
    r.iterations = it;
    double moved = 0;
    for (std::size_t k = 0; k < centers.size(); ++k) moved = std::max(moved, std::abs(next[k] - queue[k]));
    queue.swap(next);
    if (moved <= options.tolerance * population) {
      r.converged = true;
      break;
    }
  }
  return r;
}

void check_population(int population) {
  if (population < 0) throw Error(fmt::format("closed model: population {} (need >= 0)", population));
}

}  // namespace wb
