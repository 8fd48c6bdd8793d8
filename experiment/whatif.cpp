#include "experiment/whatif.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <cmath>
#include <tuple>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/expectation_surface.hpp"
#include "experiment/expectation_zcart.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/json_values.hpp"
#include "experiment/model_learning.hpp"
#include "store/store.hpp"

namespace wb {

WhatifMetric parse_whatif_metric(std::string_view text) {
  if (text == "peak") return WhatifMetric::kPeak;
  if (text == "throughput") return WhatifMetric::kThroughput;
  if (text == "response") return WhatifMetric::kResponse;
  throw InputError("--metric must be peak, throughput or response");
}

std::string_view metric_name(WhatifMetric metric) {
  switch (metric) {
    case WhatifMetric::kPeak: return "peak";
    case WhatifMetric::kThroughput: return "throughput";
    case WhatifMetric::kResponse: return "response";
  }
  return "peak";
}

std::string_view source_name(AnswerSource source) {
  switch (source) {
    case AnswerSource::kExpectation: return "expectation";
    case AnswerSource::kZCart: return "zcart";
    case AnswerSource::kRecalibrated: return "recalibrated";
    case AnswerSource::kSurface: return "surface";
  }
  return "expectation";
}

void validate_whatif(const WhatifRequest& r) {
  if (r.rate && r.clients)
    throw InputError("give --rate (open workload) or --clients (closed workload), not both");
  if (r.think_given && !r.clients) throw InputError("--think needs --clients");
  if (r.rate && (!(*r.rate >= 0) || !std::isfinite(*r.rate))) throw InputError("--rate must be a rate >= 0");
  if (r.clients && *r.clients < 1) throw InputError("--clients must be at least 1");
  if (r.metric == WhatifMetric::kResponse && !r.rate && !r.clients) {
    throw InputError("--metric response needs --rate λ or --clients N (at λ* it is R_sat by definition)");
  }
  if (r.metric == WhatifMetric::kPeak && r.clients)
    throw InputError("--metric peak is an open-workload rate: use --rate, not --clients");
}

namespace {

std::string closed_method(const ClosedResult& c) {
  if (c.iterations > 0) return fmt::format("Schweitzer's approximate MVA, {} iterations", c.iterations);
  std::string method = "load-dependent MVA, pools as flow-equivalent servers";
  if (c.seidmann_centers > 0) {
    method += fmt::format(", {} multi-server center{} by Seidmann's approximation", c.seidmann_centers,
                          c.seidmann_centers == 1 ? "" : "s");
  }
  return method;
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

std::vector<ClosedCenterAnswer> closed_centers(const OpenResult& layout, const ClosedResult& closed) {
  if (layout.centers.size() != closed.centers.size())
    throw Error("whatif: the open and closed solutions list different centers");
  std::vector<ClosedCenterAnswer> out;
  for (std::size_t i = 0; i < closed.centers.size(); ++i) {
    const CenterResult& l = layout.centers[i];
    const ClosedCenterResult& c = closed.centers[i];
    out.push_back(
        {l.name, l.pool, l.servers, l.visits, l.demand_ms, c.utilization, c.queue_length, c.residence});
  }
  return out;
}

// The expectation's answer for the request's metric: λ* with the prediction interval its measured
// gaps imply (none before anything was measured: the prior is a search's noise, not the model's
// error), or the closed or open solution's throughput or response time.
WhatifAnswer expectation_answer(const WhatifRequest& r, const PeakExpectation& peak,
                                const std::optional<ClosedResult>& closed, const Fidelity& fidelity,
                                const SpreadPrior& prior) {
  WhatifAnswer a;
  a.metric = r.metric;
  if (r.metric == WhatifMetric::kPeak) {
    a.unit = "requests/s";
    a.value = finite(peak.peak_rate);
    if (!a.value) a.note = "no center can saturate: unbounded";
    a.fidelity = fidelity.value;
    a.fidelity_n = fidelity.n;
    // The measured samples' gaps, about the expectation itself (nothing fitted), and the prior.
    if (a.value && fidelity.n > 0) {
      if (auto in = log_interval(
              *a.value, prediction_half_width(fidelity.log_gap_ss, static_cast<std::size_t>(fidelity.n), 0,
                                              prior, kAnswerLevel))) {
        std::tie(a.low, a.high) = *in;
        a.level = kAnswerLevel;
      }
    }
  } else if (closed) {
    const bool throughput = r.metric == WhatifMetric::kThroughput;
    a.unit = throughput ? "requests/s" : "ms";
    a.value = throughput ? closed->throughput * 1000.0 : closed->response;  // demands in ms
    a.note = fmt::format("closed workload: {} clients, think {:g} ms ({})", *r.clients, r.think_ms,
                         closed_method(*closed));
  } else if (r.metric == WhatifMetric::kThroughput) {
    a.unit = "requests/s";
    a.value = finite(r.rate && peak.at.stable ? *r.rate : peak.saturation_rate);
    a.note = r.rate ? (peak.at.stable ? "open workload below saturation: throughput = offered rate"
                                      : "offered rate above saturation: throughput = λ_max")
                    : "λ_max: the rate at which the first center saturates";
  } else {
    a.unit = "ms";
    a.value = finite(peak.at.response_ms);
    if (!a.value) a.note = "saturated at this rate: the response time grows without bound";
  }
  return a;
}

// A Z-CART leaf's answer as whatif reports it (the note is the caller's).
WhatifAnswer tree_answer(AnswerSource source, const ZCartAnswer& z) {
  WhatifAnswer b;
  b.source = source;
  b.unit = "requests/s";
  b.value = z.value;
  b.low = z.low;
  b.high = z.high;
  if (z.low) b.level = kAnswerLevel;
  b.fidelity = z.fidelity;
  b.fidelity_n = z.n;
  b.rule = z.rule;
  return b;
}

// Z-CART corrects the expectation's λ* where measurements disagreed with it [000 §3.3.1]: the tree
// the probe agent refined and stored, else one fitted now from the stored searches.
WhatifAnswer zcart_peak_answer(const Config& config, store::Store& store, const Sample& sample,
                               const std::vector<MeasuredVsExpected>& measured, double expected) {
  std::optional<ZCart> tree = current_zcart(store, config, probe_config(config), measured);
  check_interrupt();
  ZCartAnswer z = tree ? zcart_predict(*tree, config, sample, expected)
                       : zcart_answer(config, measured, sample, expected);
  check_interrupt();
  WhatifAnswer b = tree_answer(AnswerSource::kZCart, z);
  b.note = z.n == 0 ? std::string("zero training: no measured search yet, so the expectation itself")
                    : fmt::format("leaf {} with {} measured samples{}{}", z.rule.empty() ? "root" : z.rule,
                                  z.n, z.cap ? fmt::format(", λ* capped at {:.1f}/s", *z.cap) : "",
                                  tree ? " (stored tree)" : "");
  return b;
}

// The recalibrated network alone: its interval from its leave-one-out residuals (each sample
// predicted by a curve fitted without it), so nothing fitted to the sample is counted twice.
WhatifAnswer recalibrated_peak_answer(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                                      const Sample& sample, const LearnedModel& learned) {
  WhatifAnswer b;
  b.source = AnswerSource::kRecalibrated;
  b.unit = "requests/s";
  b.value = finite(recalibrated_peak(config, calibrations, *learned.recalibration, sample));
  const HeldOutError& e = learned.recalibrated;
  if (b.value && e.n > 0) {
    if (auto in = log_interval(*b.value,
                               prediction_half_width(e.sum_sq, e.n, 0, answer_prior(config), kAnswerLevel))) {
      std::tie(b.low, b.high) = *in;
      b.level = kAnswerLevel;
    }
    b.fidelity = static_cast<double>(e.within) / static_cast<double>(e.n);
  }
  b.fidelity_n = static_cast<int>(e.n);
  b.note = fmt::format("the [model] recalibrated: {}; fidelity from leave-one-out refits",
                       learned.recalibration->describe());
  return b;
}

// Z-CART over the residuals of the recalibrated network (source "recalibrated", with a rule).
WhatifAnswer zcart_on_recalibrated_answer(const Config& config,
                                          const std::vector<CalibratedDemand>& calibrations,
                                          const Sample& sample,
                                          const std::vector<MeasuredVsExpected>& measured,
                                          const LearnedModel& learned) {
  const double base = recalibrated_peak(config, calibrations, *learned.recalibration, sample);
  if (!(base > 0) || !std::isfinite(base))
    return recalibrated_peak_answer(config, calibrations, sample, learned);
  ZCart tree = zcart_on_recalibrated(config, calibrations, measured, *learned.recalibration,
                                     persisted_zcart_options(config, probe_config(config)));
  check_interrupt();
  const ZCartAnswer z = zcart_predict(tree, config, sample, base);
  WhatifAnswer b = tree_answer(AnswerSource::kRecalibrated, z);
  b.note = fmt::format("Z-CART leaf {} with {} measured samples{} over the [model] recalibrated: {}",
                       z.rule.empty() ? "root" : z.rule, z.n,
                       z.cap ? fmt::format(", λ* capped at {:.1f}/s", *z.cap) : "",
                       learned.recalibration->describe());
  return b;
}

WhatifAnswer surface_peak_answer(const SurfaceAnswer& s) {
  WhatifAnswer b;
  b.source = AnswerSource::kSurface;
  b.unit = "requests/s";
  b.value = s.value;
  b.low = s.low;
  b.high = s.high;
  b.fidelity = s.fidelity;
  b.fidelity_n = s.n;
  b.note = fmt::format("surface {}: {}, fitted to {} measured samples; fidelity from leave-one-out refits",
                       s.surface_id, s.description, s.n);
  return b;
}

}  // namespace

WhatifResult answer_whatif(const Config& config, const std::string& store_path, const WhatifRequest& r) {
  validate_whatif(r);
  WhatifResult result;
  result.sample = config.point(r.set);
  for (const Factor& f : config.factors()) {
    if (!f.numeric || f.numeric_levels.empty()) continue;
    const double x = result.sample.numeric(f.name);
    const auto [lo, hi] = std::minmax_element(f.numeric_levels.begin(), f.numeric_levels.end());
    if (x < *lo || x > *hi)
      result.extrapolated.push_back(fmt::format("{}={} (levels {}..{})", f.name, result.sample.value(f.name),
                                                format_number(*lo), format_number(*hi)));
  }
  if (!config.model()) {
    throw InputError(
        fmt::format("{}: no [model] section; whatif answers from the expectation model", config.file()));
  }
  store::Store store(store_path);
  std::vector<CalibratedDemand> calibrations = load_calibrations(store, config);
  // The signal handlers only set a flag (experiment/interrupt.hpp): look at it between the steps
  // of the computation, and between the network solves of the λ* search.
  check_interrupt();
  result.peak = expect_peak(config, result.sample, calibrations, r.rate, check_interrupt);
  check_interrupt();
  if (r.clients) {
    result.closed = expect_closed(config, result.sample, calibrations, *r.clients, r.think_ms);
    result.closed_method = closed_method(*result.closed);
    result.closed_bottleneck = closed_bottleneck(*result.closed);
    result.closed_centers = closed_centers(result.peak.at, *result.closed);
    check_interrupt();
  }
  std::vector<MeasuredVsExpected> measured = measured_vs_expected(store, config.name());
  const WhatifAnswer& a = result.answers.emplace_back(expectation_answer(
      r, result.peak, result.closed, expectation_fidelity(measured), answer_prior(config)));
  if (r.metric != WhatifMetric::kPeak) return result;
  if (a.value && *a.value > 0) {
    const double expected = *a.value;
    // Z-CART, the recalibrated network or both: whichever predicted the measured samples best.
    result.learned =
        current_learned_model(store, config, calibrations, measured,
                              persisted_zcart_options(config, probe_config(config)), check_interrupt);
    result.answers.push_back(zcart_peak_answer(config, store, result.sample, measured, expected));
    switch (result.learned->form) {
      case LearnedForm::kZCart: break;
      case LearnedForm::kRecalibrated:
        result.answers.push_back(
            recalibrated_peak_answer(config, calibrations, result.sample, *result.learned));
        break;
      case LearnedForm::kZCartOnRecalibrated:
        result.answers.push_back(
            zcart_on_recalibrated_answer(config, calibrations, result.sample, measured, *result.learned));
        break;
    }
    result.answers.back().preferred = true;
  }
  // The fitted surface answers λ* only, and only inside the region a finished map-surface measured.
  if (std::optional<SurfaceAnswer> s = surface_answer(store, config, result.sample))
    result.answers.push_back(surface_peak_answer(*s));
  check_interrupt();
  return result;
}

}  // namespace wb
