#pragma once
// Open-network analysis of the [model] queue network (core/queue_network.hpp) for one sample, the
// expectation at an offered rate λ [000 §2.1, 001 §III-C]: Jackson's decomposition, pools solved with
// their inner centers (docs/decisions.md#open-network). A request holds its token once for all its
// pool visits, so declare a pool's centers consecutively. Units: requests/s and ms. Pure function of
// (network, sample); wb::InputError naming the center for an impossible server count or demand.
#include <functional>
#include <string>
#include <vector>

#include "core/queue_network.hpp"
#include "core/sample.hpp"
#include "models/closed_model.hpp"

namespace wb {

struct CenterResult {
  std::string name;
  bool pool = false;
  int servers = 1;         // servers, or tokens for a pool
  double visits = 1;       // per request (a pool: 1, its token is taken once)
  double demand_ms = 0;    // per request: visits × per-visit demand; a pool: the sum over its
                           // inner centers (the token holding time at light load)
  double utilization = 0;  // busy fraction per server (pool: mean tokens held / tokens); 0 for delay
  double response_ms = 0;  // per request, queueing included; a pool: the wait for a token only
                           // (its inner centers report their own times). +inf when saturated
};

struct OpenResult {
  double lambda = 0;                  // offered rate, requests/s
  bool stable = false;                // every center below saturation
  std::vector<CenterResult> centers;  // in declaration order
  double response_ms = 0;             // R(λ) = Σ centers' response_ms; +inf when not stable
  std::string bottleneck;             // the center with the highest utilization
};

OpenResult solve_open(const QueueNetwork& net, const Sample& sample, double lambda);

// λ_max: the smallest rate at which some center saturates, min over centers outside pools of
// servers/(visits·demand) and over pools of the flow-equivalent capacity X(N_P). +infinity if nothing
// can saturate (only delay centers).
double saturation_rate(const QueueNetwork& net, const Sample& sample);

// λ* = the rate where R(λ) = R_sat, found on (0, λ_max) by Boost.Math's TOMS 748 as the root of
// 1/R(λ) − 1/R_sat. 0 if even an unloaded system exceeds R_sat; +infinity if nothing can saturate and R
// stays below R_sat.
double predicted_peak(const QueueNetwork& net, const Sample& sample, double r_sat_ms);

// predicted_peak for several limits at once (e.g. R_sat and the region's ends), in the order given, the
// same values to its tolerance; earlier roots bracket later ones. `between_solves`, if given, runs
// before each network solve and may throw to abandon it (models/ reads no signals itself).
std::vector<double> predicted_peaks(const QueueNetwork& net, const Sample& sample,
                                    const std::vector<double>& r_sat_ms,
                                    const std::function<void()>& between_solves = {});

// Every center but the pools (inside and outside them) as a closed model, demand per request in ms,
// for the operational laws. A pool's token limit is not product-form and is left out: for a closed
// workload with pools use solve_closed() (models/closed_network.hpp).
std::vector<ClosedCenter> closed_centers(const QueueNetwork& net, const Sample& sample);

}  // namespace wb
