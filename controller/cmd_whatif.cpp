// `workbench whatif`: what a sample nobody measured would do, from the expectation model
// [000 §2.1, 001 §III-C], each answer labelled with its source and fidelity [000 §3.3.1].
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "core/cli_numbers.hpp"
#include "core/error.hpp"
#include "core/trial_limits.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/expectation_surface.hpp"
#include "experiment/expectation_zcart.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/json_values.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

struct WhatifOptions {
  std::string set;
  std::string metric = "peak";
  std::optional<double> rate;
  std::optional<int> clients;
  double think_ms = 0;
  bool think_given = false;
  bool explain = false;
};

struct Answer {
  std::string source;
  std::string metric;
  std::string unit;
  std::optional<double> value;  // nullopt: unbounded or saturated (see note)
  std::optional<double> low, high;
  std::optional<double> fidelity;
  int fidelity_n = 0;
  std::string note;
  std::optional<std::string> rule;  // Z-CART: the leaf's rule path ("" at the root)
};

// A closed workload's solution per center, with what the open solution knows of each center
// (servers, visits, demand): the two list the network's centers in the same declaration order.
struct ClosedCenterView {
  const CenterResult* layout = nullptr;
  const ClosedCenterResult* result = nullptr;
};

std::vector<ClosedCenterView> closed_view(const OpenResult& layout, const ClosedResult& closed) {
  if (layout.centers.size() != closed.centers.size())
    throw Error("whatif: the open and closed solutions list different centers");
  std::vector<ClosedCenterView> out;
  for (std::size_t i = 0; i < closed.centers.size(); ++i)
    out.push_back({&layout.centers[i], &closed.centers[i]});
  return out;
}

// The closed bottleneck: the center with the highest utilization (a pool: its share of tokens
// held), as for the open solution.
std::string closed_bottleneck(const ClosedResult& closed) {
  std::string name;
  double worst = -1;
  for (const auto& c : closed.centers) {
    if (c.utilization > worst) {
      worst = c.utilization;
      name = c.name;
    }
  }
  return name;
}

nlohmann::json closed_centers_json(const std::vector<ClosedCenterView>& view) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : view) {
    out.push_back({{"name", v.layout->name},
                   {"pool", v.layout->pool},
                   {"servers", v.layout->servers},
                   {"visits", v.layout->visits},
                   {"demand_ms", v.layout->demand_ms},
                   {"utilization", v.result->utilization},
                   {"queue_length", v.result->queue_length},
                   {"response_ms", number_or_null(v.result->residence)},
                   {"response_per_visit_ms", number_or_null(v.result->residence / v.layout->visits)}});
  }
  return out;
}

std::string closed_method(const ClosedResult& c) {
  if (c.iterations > 0) return fmt::format("Schweitzer's approximate MVA, {} iterations", c.iterations);
  std::string method = "load-dependent MVA, pools as flow-equivalent servers";
  if (c.seidmann_centers > 0) {
    method += fmt::format(", {} multi-server center{} by Seidmann's approximation", c.seidmann_centers,
                          c.seidmann_centers == 1 ? "" : "s");
  }
  return method;
}

void validate(const WhatifOptions& o) {
  if (o.metric != "peak" && o.metric != "throughput" && o.metric != "response") {
    throw InputError("--metric must be peak, throughput or response");
  }
  if (o.rate && o.clients)
    throw InputError("give --rate (open workload) or --clients (closed workload), not both");
  if (o.think_given && !o.clients) throw InputError("--think needs --clients");
  if (o.rate && (!(*o.rate >= 0) || !std::isfinite(*o.rate))) throw InputError("--rate must be a rate >= 0");
  if (o.clients && *o.clients < 1) throw InputError("--clients must be at least 1");
  if (o.metric == "response" && !o.rate && !o.clients) {
    throw InputError("--metric response needs --rate λ or --clients N (at λ* it is R_sat by definition)");
  }
  if (o.metric == "peak" && o.clients)
    throw InputError("--metric peak is an open-workload rate: use --rate, not --clients");
}

int run_whatif(const CommonOptions& common, const WhatifOptions& o) {
  validate(o);
  Config config = Config::load(common.config);
  Sample sample = config.sample(o.set);
  ProbeConfig probing = probe_config(config);
  if (!config.model()) {
    throw InputError(
        fmt::format("{}: no [model] section; whatif answers from the expectation model", config.file()));
  }
  store::Store store(common.store_or(config.store_path()));
  std::vector<CalibratedDemand> calibrations = load_calibrations(store, config);
  // The signal handlers only set a flag (experiment/interrupt.hpp): look at it between the steps
  // of the computation, and between the network solves of the λ* search.
  check_interrupt();
  PeakExpectation peak = expect_peak(config, sample, calibrations, o.rate, check_interrupt);
  check_interrupt();
  std::optional<ClosedResult> closed;
  if (o.clients) {
    closed = expect_closed(config, sample, calibrations, *o.clients, o.think_ms);
    check_interrupt();
  }
  std::vector<MeasuredVsExpected> measured = measured_vs_expected(store, config.name());
  Fidelity fidelity = expectation_fidelity(measured);

  Answer a;
  a.source = "expectation";
  a.metric = o.metric;
  if (o.metric == "peak") {
    a.unit = "requests/s";
    a.value = finite(peak.peak_rate);
    if (!a.value) a.note = "no center can saturate: unbounded";
    a.fidelity = fidelity.value;
    a.fidelity_n = fidelity.n;
    if (a.value && fidelity.low_ratio) {
      a.low = *a.value * *fidelity.low_ratio;
      a.high = *a.value * *fidelity.high_ratio;
    }
  } else if (closed) {
    if (o.metric == "throughput") {
      a.unit = "requests/s";
      a.value = closed->throughput * 1000.0;  // demands in ms
    } else {
      a.unit = "ms";
      a.value = closed->response;
    }
    a.note = fmt::format("closed workload: {} clients, think {:g} ms ({})", *o.clients, o.think_ms,
                         closed_method(*closed));
  } else if (o.metric == "throughput") {
    a.unit = "requests/s";
    a.value = o.rate ? (peak.at.stable ? *o.rate : peak.saturation_rate) : peak.saturation_rate;
    a.value = finite(*a.value);
    a.note = o.rate ? (peak.at.stable ? "open workload below saturation: throughput = offered rate"
                                      : "offered rate above saturation: throughput = λ_max")
                    : "λ_max: the rate at which the first center saturates";
  } else {
    a.unit = "ms";
    a.value = finite(peak.at.response_ms);
    if (!a.value) a.note = "saturated at this rate: the response time grows without bound";
  }

  std::vector<Answer> answers{a};
  // Z-CART corrects the expectation's λ* where measurements disagreed with it [000 §3.3.1].
  if (o.metric == "peak" && a.value && *a.value > 0) {
    // The tree the probe agent refined and stored; else one fitted now from the stored searches.
    std::optional<ZCart> tree = current_zcart(store, config, probing, measured);
    check_interrupt();
    ZCartAnswer z = tree ? zcart_predict(*tree, config, sample, *a.value)
                         : zcart_answer(config, measured, sample, *a.value);
    check_interrupt();
    Answer b;
    b.source = "zcart";
    b.metric = "peak";
    b.unit = "requests/s";
    b.value = z.value;
    b.low = z.low;
    b.high = z.high;
    b.fidelity = z.fidelity;
    b.fidelity_n = z.n;
    b.rule = z.rule;
    b.note = z.n == 0 ? std::string("zero training: no measured search yet, so the expectation itself")
                      : fmt::format("leaf {} with {} measured searches{}", z.rule.empty() ? "root" : z.rule,
                                    z.n, tree ? " (stored tree)" : "");
    answers.push_back(b);
  }
  // The fitted surface answers λ* only, and only inside the region a finished map-surface measured.
  if (o.metric == "peak") {
    if (std::optional<SurfaceAnswer> s = surface_answer(store, config, sample)) {
      Answer b;
      b.source = "surface";
      b.metric = "peak";
      b.unit = "requests/s";
      b.value = s->value;
      b.low = s->low;
      b.high = s->high;
      b.fidelity = s->fidelity;
      b.fidelity_n = s->n;
      b.note =
          fmt::format("surface {}: quadratic fit to {} measured samples; fidelity from leave-one-out refits",
                      s->surface_id, s->n);
      answers.push_back(b);
    }
    check_interrupt();
  }

  if (common.json) {
    nlohmann::json answers_json = nlohmann::json::array();
    for (const Answer& x : answers) {
      nlohmann::json ans{{"source", x.source},
                         {"metric", x.metric},
                         {"unit", x.unit},
                         {"value", opt_json(x.value)},
                         {"low", opt_json(x.low)},
                         {"high", opt_json(x.high)},
                         {"fidelity", opt_json(x.fidelity)},
                         {"fidelity_n", x.fidelity_n},
                         {"tolerance", kExpectationTolerance}};
      if (x.source == "expectation") ans["calibrated"] = peak.calibrated;
      if (x.rule) ans["rule"] = *x.rule;
      if (!x.note.empty()) ans["note"] = x.note;
      answers_json.push_back(ans);
    }
    nlohmann::json j{{"sample", sample_json(config, sample)},
                     {"answers", answers_json},
                     {"peak_rate", opt_json(finite(peak.peak_rate))},
                     {"region_low", opt_json(finite(peak.region_low))},
                     {"region_high", opt_json(finite(peak.region_high))},
                     {"saturation_rate", opt_json(finite(peak.saturation_rate))}};
    if (closed) {
      // The centers as the closed workload loads them: N clients and think time Z, not λ*.
      j["closed"] = {{"clients", *o.clients},
                     {"think_ms", o.think_ms},
                     {"throughput", closed->throughput * 1000.0},
                     {"response_ms", closed->response},
                     {"method", closed_method(*closed)}};
      j["bottleneck"] = closed_bottleneck(*closed);
      j["centers"] = closed_centers_json(closed_view(peak.at, *closed));
    } else {
      j["bottleneck"] = peak.at.bottleneck;
      j["at_rate"] = peak.at.lambda;
      j["centers"] = centers_json(peak.at);
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }

  fmt::print("whatif {} on {}\n", sample.key(), config.name());
  for (const Answer& x : answers) {
    std::string value = x.value ? fmt::format("{:.1f} {}", *x.value, x.unit) : std::string("unbounded");
    std::string fid = x.fidelity ? fmt::format("fidelity {:.0f}% of {} measured samples within {:.0f}%",
                                               *x.fidelity * 100, x.fidelity_n, kExpectationTolerance * 100)
                                 : std::string("fidelity unknown: no measured search to compare with yet");
    fmt::print("  {:<11} {} = {}  ({})\n", x.source, x.metric == "peak" ? "λ*" : x.metric, value, fid);
    if (x.low) fmt::print("  {:<11} range: [{:.1f}, {:.1f}] {}\n", "", *x.low, *x.high, x.unit);
    if (x.source == "expectation" && x.metric == "peak" && x.value && std::isfinite(peak.region_high)) {
      fmt::print("  {:<11} peak-rate region: R(λ) within R_sat ± {:.0f}% for λ in [{:.1f}, {:.1f}] {}\n", "",
                 config.peak().region.width * 100, peak.region_low, peak.region_high, x.unit);
    }
    if (!x.note.empty()) fmt::print("  {:<11} {}\n", "", x.note);
  }
  if (!peak.calibrated.empty()) {
    std::string names;
    for (const auto& n : peak.calibrated) names += (names.empty() ? "" : ", ") + n;
    fmt::print("  {:<11} calibrated demands: {}\n", "", names);
  }
  if (o.explain && closed) {
    fmt::print(
        "\nwith {} clients and think time {:g} ms: X = {:.6g} requests/s, R = N/X − Z = {:.3f} ms; "
        "the bottleneck is {}\n",
        *o.clients, o.think_ms, closed->throughput * 1000.0, closed->response, closed_bottleneck(*closed));
    fmt::print("  {:<10} {:>8} {:>8} {:>10} {:>12} {:>10} {:>12} {:>12}\n", "center", "servers", "visits",
               "demand_ms", "utilization", "queue", "response_ms", "per_visit_ms");
    for (const auto& v : closed_view(peak.at, *closed)) {
      fmt::print("  {:<10} {:>8} {:>8.3f} {:>10.3f} {:>12.3f} {:>10.3f} {:>12.3f} {:>12.3f}\n",
                 v.layout->name + (v.layout->pool ? "*" : ""), v.layout->servers, v.layout->visits,
                 v.layout->demand_ms, v.result->utilization, v.result->queue_length, v.result->residence,
                 v.result->residence / v.layout->visits);
    }
    fmt::print(
        "  (queue: mean requests there; response_ms: per request, all its visits; * a pool: servers are "
        "its tokens, queue and response its wait for a token)\n");
  } else if (o.explain) {
    fmt::print("\nat λ = {:.1f}/s the bottleneck is {} (λ_max = {:.1f}/s)\n", peak.at.lambda,
               peak.at.bottleneck, peak.saturation_rate);
    fmt::print("  {:<10} {:>8} {:>10} {:>12} {:>12}\n", "center", "servers", "demand_ms", "utilization",
               "response_ms");
    for (const auto& c : peak.at.centers) {
      fmt::print("  {:<10} {:>8} {:>10.3f} {:>12.3f} {:>12}\n", c.name + (c.pool ? "*" : ""), c.servers,
                 c.demand_ms, c.utilization,
                 std::isfinite(c.response_ms) ? fmt::format("{:.3f}", c.response_ms) : "inf");
    }
    fmt::print("  (* a pool: servers are its tokens, response its wait for a token)\n");
  }
  return 0;
}

}  // namespace

Command whatif_command() {
  return Command{
      "whatif",
      "Answer what a sample would do without measuring it: λ* (peak), throughput or response time, from the "
      "[model] expectation network with calibrated demands, (λ* only) from Z-CART, which corrects the "
      "expectation where "
      "this testbed's measurements disagreed with it, and (λ* only) from the response surface of a finished "
      "map-surface run when the sample lies inside the region it measured. Each answer names its source and "
      "its "
      "fidelity: for the expectation, the fraction of this testbed's measured searches whose λ* lay within "
      "10% of "
      "the expectation stored with them (null when nothing was measured yet; see `workbench report`), with "
      "low/high "
      "the range those gaps imply; for Z-CART, the fraction of its leaf's measured searches it predicts "
      "within 10%; "
      "for the surface, the fraction of its measured samples that a refit without "
      "them predicts within 10%, with low/high ±2 prediction standard errors.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<WhatifOptions>();
        add_common_options(app, common);
        app.add_option("--set,-s", o->set,
                       "factor levels of the sample, e.g. threads=8,disks=4 (others: their default)");
        app.add_option("--metric,-m", o->metric, "peak (λ*, default), throughput or response");
        app.add_option("--rate,-r", o->rate, "open workload: offered rate λ, requests/s")
            ->check(cli::finite_number(0, kMaxRate));
        app.add_option("--clients,-n", o->clients, "closed workload: N clients (MVA)")
            ->transform(cli::whole_number(1, 1000000000));
        app.add_option("--think,-z", o->think_ms, "closed workload: think time Z, ms (default 0)")
            ->check(cli::finite_number(0, 1e12))
            ->each([o](const std::string&) { o->think_given = true; });
        app.add_flag(
            "--explain,-e", o->explain,
            "name the bottleneck center and every center's utilization at --rate (default: at λ*), or "
            "with --clients every center's utilization, queue length and response time for N and Z");
        return [&common, o] { return run_whatif(common, *o); };
      }};
}

}  // namespace wb
