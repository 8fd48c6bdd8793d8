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
#include "experiment/json_values.hpp"
#include "experiment/whatif.hpp"

namespace wb {

namespace {

struct WhatifOptions {
  WhatifRequest request;
  std::string metric = "peak";
  bool explain = false;
};

nlohmann::json answer_json(const WhatifAnswer& x, const PeakExpectation& peak) {
  nlohmann::json ans{
      {"source", source_name(x.source)},    {"metric", metric_name(x.metric)},  {"unit", x.unit},
      {"value", opt_json(x.value)},         {"low", opt_json(x.low)},           {"high", opt_json(x.high)},
      {"level", opt_json(x.level)},         {"fidelity", opt_json(x.fidelity)}, {"fidelity_n", x.fidelity_n},
      {"tolerance", kExpectationTolerance}, {"preferred", x.preferred}};
  if (x.source == AnswerSource::kExpectation) ans["calibrated"] = peak.calibrated;
  if (x.rule) ans["rule"] = *x.rule;
  if (!x.note.empty()) ans["note"] = x.note;
  return ans;
}

// DESIGN.md "Command contracts": whatif --json.
nlohmann::json whatif_json(const Config& config, const WhatifRequest& r, const WhatifResult& w) {
  nlohmann::json answers = nlohmann::json::array();
  for (const WhatifAnswer& x : w.answers) answers.push_back(answer_json(x, w.peak));
  const PeakExpectation& peak = w.peak;
  nlohmann::json j{{"sample", sample_json(config, w.sample)},
                   {"answers", answers},
                   {"peak_rate", opt_json(finite(peak.peak_rate))},
                   {"region_low", opt_json(finite(peak.region_low))},
                   {"region_high", opt_json(finite(peak.region_high))},
                   {"saturation_rate", opt_json(finite(peak.saturation_rate))},
                   {"extrapolation", w.extrapolated}};
  if (w.learned) j["learned"] = learned_model_report(*w.learned);
  if (const auto& st = peak.storage) {
    j["storage"] = {{"cache_mb", st->cache_mb},
                    {"cache_blocks", st->cache_blocks},
                    {"read_hit_rate", st->read_hit_rate},
                    {"block_hit_rate", st->block_hit_rate},
                    {"disk_visits", st->disk_visits},
                    {"disk_ms", opt_json(st->disk_ms)},
                    {"trace_ops", st->ops}};
    if (!st->class_attributes.empty()) j["storage"]["classes"] = st->class_attributes;
  }
  if (w.closed) {
    // The centers as the closed workload loads them: N clients and think time Z, not λ*.
    j["closed"] = {{"clients", *r.clients},
                   {"think_ms", r.think_ms},
                   {"throughput", w.closed->throughput * 1000.0},
                   {"response_ms", w.closed->response},
                   {"method", w.closed_method}};
    j["bottleneck"] = w.closed_bottleneck;
    nlohmann::json centers = nlohmann::json::array();
    for (const ClosedCenterAnswer& c : w.closed_centers) {
      centers.push_back({{"name", c.name},
                         {"pool", c.pool},
                         {"servers", c.servers},
                         {"visits", c.visits},
                         {"demand_ms", c.demand_ms},
                         {"utilization", c.utilization},
                         {"queue_length", c.queue_length},
                         {"response_ms", number_or_null(c.response_ms)},
                         {"response_per_visit_ms", number_or_null(c.response_ms / c.visits)}});
    }
    j["centers"] = centers;
  } else {
    j["bottleneck"] = peak.at.bottleneck;
    j["at_rate"] = peak.at.lambda;
    j["centers"] = centers_json(peak.at);
  }
  return j;
}

void print_answers(const Config& config, const WhatifResult& w) {
  fmt::print("whatif {} on {}\n", w.sample.key(), config.name());
  for (const std::string& e : w.extrapolated)
    fmt::print("  extrapolation: {} is outside the declared levels\n", e);
  const PeakExpectation& peak = w.peak;
  for (const WhatifAnswer& x : w.answers) {
    std::string value = x.value ? fmt::format("{:.1f} {}", *x.value, x.unit) : std::string("unbounded");
    std::string fid = x.fidelity ? fmt::format("fidelity {:.0f}% of {} measured samples within {:.0f}%",
                                               *x.fidelity * 100, x.fidelity_n, kExpectationTolerance * 100)
                                 : std::string("fidelity unknown: no measured search to compare with yet");
    const bool peak_metric = x.metric == WhatifMetric::kPeak;
    fmt::print("  {:<12} {} = {}  ({})\n", source_name(x.source), peak_metric ? "λ*" : metric_name(x.metric),
               value, fid);
    if (x.low && x.level) {
      fmt::print("  {:<12} {:.0f}% prediction interval: [{:.1f}, {:.1f}] {}\n", "", *x.level * 100, *x.low,
                 *x.high, x.unit);
    } else if (x.low) {
      fmt::print("  {:<12} range: [{:.1f}, {:.1f}] {}\n", "", *x.low, *x.high, x.unit);
    }
    if (x.source == AnswerSource::kExpectation && peak_metric && x.value && std::isfinite(peak.region_high)) {
      fmt::print("  {:<12} peak-rate region: R(λ) within R_sat ± {:.0f}% for λ in [{:.1f}, {:.1f}] {}\n", "",
                 config.peak().region.width * 100, peak.region_low, peak.region_high, x.unit);
    }
    if (!x.note.empty()) fmt::print("  {:<12} {}\n", "", x.note);
    if (x.preferred)
      fmt::print("  {:<12} preferred: the learned answer whatif stands behind (--explain says why)\n", "");
  }
  if (const auto& st = peak.storage) {
    fmt::print(
        "  {:<12} storage: a {:g} MiB cache hits {:.1f}% of reads ({:.1f}% of blocks); {:.3f} disk I/Os "
        "per request{}\n",
        "", st->cache_mb, st->read_hit_rate * 100, st->block_hit_rate * 100, st->disk_visits,
        st->disk_ms ? fmt::format(" of {:.3f} ms each", *st->disk_ms) : std::string());
  }
  if (!peak.calibrated.empty()) {
    std::string names;
    for (const auto& n : peak.calibrated) names += (names.empty() ? "" : ", ") + n;
    fmt::print("  {:<12} calibrated demands: {}\n", "", names);
  }
}

// --explain: every center's figures under the closed workload, or at the open rate.
void print_explanation(const WhatifRequest& r, const WhatifResult& w) {
  if (w.closed) {
    fmt::print(
        "\nwith {} clients and think time {:g} ms: X = {:.6g} requests/s, R = N/X − Z = {:.3f} ms; "
        "the bottleneck is {}\n",
        *r.clients, r.think_ms, w.closed->throughput * 1000.0, w.closed->response, w.closed_bottleneck);
    fmt::print("  {:<10} {:>8} {:>8} {:>10} {:>12} {:>10} {:>12} {:>12}\n", "center", "servers", "visits",
               "demand_ms", "utilization", "queue", "response_ms", "per_visit_ms");
    for (const ClosedCenterAnswer& c : w.closed_centers) {
      fmt::print("  {:<10} {:>8} {:>8.3f} {:>10.3f} {:>12.3f} {:>10.3f} {:>12.3f} {:>12.3f}\n",
                 c.name + (c.pool ? "*" : ""), c.servers, c.visits, c.demand_ms, c.utilization,
                 c.queue_length, c.response_ms, c.response_ms / c.visits);
    }
    fmt::print(
        "  (queue: mean requests there; response_ms: per request, all its visits; * a pool: servers are "
        "its tokens, queue and response its wait for a token)\n");
    return;
  }
  if (w.learned) fmt::print("\nlearned λ*: {}\n", w.learned->why);
  const OpenResult& at = w.peak.at;
  fmt::print("\nat λ = {:.1f}/s the bottleneck is {} (λ_max = {:.1f}/s)\n", at.lambda, at.bottleneck,
             w.peak.saturation_rate);
  fmt::print("  {:<10} {:>8} {:>10} {:>12} {:>12}\n", "center", "servers", "demand_ms", "utilization",
             "response_ms");
  for (const auto& c : at.centers) {
    fmt::print("  {:<10} {:>8} {:>10.3f} {:>12.3f} {:>12}\n", c.name + (c.pool ? "*" : ""), c.servers,
               c.demand_ms, c.utilization,
               std::isfinite(c.response_ms) ? fmt::format("{:.3f}", c.response_ms) : "inf");
  }
  fmt::print("  (* a pool: servers are its tokens, response its wait for a token)\n");
}

int run_whatif(const CommonOptions& common, WhatifOptions& o) {
  o.request.metric = parse_whatif_metric(o.metric);
  Config config = Config::load(common.config);
  WhatifResult w = answer_whatif(config, common.store_or(config.store_path()), o.request);
  if (common.json) {
    std::cout << whatif_json(config, o.request, w).dump(2) << "\n";
    return 0;
  }
  print_answers(config, w);
  if (o.explain) print_explanation(o.request, w);
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
      "its fidelity: for the expectation, the fraction of this testbed's measured samples whose λ* lay "
      "within 10% of the expectation stored with them (null when nothing was measured yet; see `workbench "
      "report`); for Z-CART, the fraction of its leaf's measured samples it predicts within 10%; for the "
      "surface, the fraction of its measured samples that a refit without them predicts within 10%. "
      "low/high: "
      "for the expectation and Z-CART a 90% prediction interval (`level`) from the measured gaps and a prior "
      "at the [peak] target's accuracy; for the surface ±2 prediction standard errors.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<WhatifOptions>();
        add_common_options(app, common);
        app.add_option("--set,-s", o->request.set,
                       "factor levels of the sample, e.g. threads=8,disks=4 (others: their default)");
        app.add_option("--metric,-m", o->metric, "peak (λ*, default), throughput or response");
        app.add_option("--rate,-r", o->request.rate, "open workload: offered rate λ, requests/s")
            ->check(cli::finite_number(0, kMaxRate));
        app.add_option("--clients,-n", o->request.clients, "closed workload: N clients (MVA)")
            ->transform(cli::whole_number(1, 1000000000));
        app.add_option("--think,-z", o->request.think_ms, "closed workload: think time Z, ms (default 0)")
            ->check(cli::finite_number(0, 1e12))
            ->each([o](const std::string&) { o->request.think_given = true; });
        app.add_flag(
            "--explain,-e", o->explain,
            "name the bottleneck center and every center's utilization at --rate (default: at λ*), or "
            "with --clients every center's utilization, queue length and response time for N and Z");
        return [&common, o] { return run_whatif(common, *o); };
      }};
}

}  // namespace wb
