#pragma once
// Open-network analysis of the [model] queue network (core/queue_network.hpp) for one sample:
// the expectation of what a server should do at an offered rate λ [000 §2.1, 001 §III-C].
//
// Each center outside any pool is an independent station fed by a Poisson stream of rate λ·visits
// (Jackson's decomposition): FCFS by M/M/c with the Allen–Cunneen correction for the service
// distribution's variability (exact for exponential service and for one server), PS by M/M/c
// (its means hold for any service distribution), delay centers by their demand. A pool and the
// centers within it are solved together: exactly as a quasi-birth-death process where its phase
// space is small (models/pool_qbd.hpp: up to 160 placements of N_P requests on the inner
// stations, e.g. 2 inner stations and up to 159 threads), else as a flow-equivalent server
// (models/pool_model.hpp). The analysis takes a request to hold its token once, for all its visits
// within the pool: declare a pool's centers consecutively (a center outside the pool between two
// inside it makes the simulated testbed release and retake the token, which this does not model).
//
// Units: rates in requests/s, times in ms, as in configs. Pure functions of (network, sample).
// Failure: wb::InputError if, for this sample, a server count is not a whole number >= 1 or a
// demand is not positive (an expression of factors can evaluate to anything), naming the center.
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

// λ_max: the smallest rate at which some center saturates — min over centers outside pools of
// servers/(visits·demand), and over pools of the flow-equivalent capacity X(N_P) (which is at most
// N_P over the light-load holding time and at most each inner center's servers/demand).
// +infinity if nothing can saturate (only delay centers).
double saturation_rate(const QueueNetwork& net, const Sample& sample);

// λ* = the rate where R(λ) = R_sat, found on (0, λ_max) with Boost.Math's TOMS 748 root finder
// as the root of 1/R(λ) − 1/R_sat (R is increasing in λ, 1/R falls to 0 at λ_max). Returns 0 if
// even an unloaded system exceeds R_sat, and +infinity if nothing can saturate (only delay
// centers) and R stays below R_sat.
double predicted_peak(const QueueNetwork& net, const Sample& sample, double r_sat_ms);

// predicted_peak for several limits at once, e.g. R_sat and the peak-rate region's ends
// R_sat·(1 ∓ s), in the order given: each root is bracketed by the rates solved for the ones
// before it, so a limit near an earlier one costs about half the network solves. The same values
// as predicted_peak (which is this for one limit), to its tolerance.
// `between_solves`, if given, is called before each network solve and may throw to abandon the
// search (the controller stops it on an interrupt this way: models/ reads no signals itself).
std::vector<double> predicted_peaks(const QueueNetwork& net, const Sample& sample,
                                    const std::vector<double>& r_sat_ms,
                                    const std::function<void()>& between_solves = {});

// Every center except the pools (those outside pools and those within them) as a closed model
// (demand per request in ms), for the operational laws of models/operational_laws.hpp. A pool's
// token limit is not a product-form center and is left out, so this is not a closed-workload
// model of a network with pools: solve_closed() (models/closed_network.hpp) is.
std::vector<ClosedCenter> closed_centers(const QueueNetwork& net, const Sample& sample);

}  // namespace wb
