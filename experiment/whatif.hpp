#pragma once
// What a sample nobody measured would do: the answers of `workbench whatif` from the expectation
// model [000 §2.1, 001 §III-C], Z-CART and a finished surface, each with its source and fidelity
// [000 §3.3.1]. Typed answers only; controller/cmd_whatif.cpp renders them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.hpp"
#include "experiment/expectation.hpp"
#include "experiment/model_learning.hpp"
#include "models/closed_model.hpp"

namespace wb {

enum class WhatifMetric { kPeak, kThroughput, kResponse };
// "peak", "throughput" or "response"; InputError otherwise.
WhatifMetric parse_whatif_metric(std::string_view text);
std::string_view metric_name(WhatifMetric metric);

// kRecalibrated: the [model] network with one center's demand refitted to the measured λ*
// (experiment/model_learning.hpp).
enum class AnswerSource { kExpectation, kZCart, kRecalibrated, kSurface };
std::string_view source_name(AnswerSource source);

struct WhatifRequest {
  std::string set;  // factor levels, as --set
  WhatifMetric metric = WhatifMetric::kPeak;
  std::optional<double> rate;  // open workload
  std::optional<int> clients;  // closed workload
  double think_ms = 0;
  bool think_given = false;
};

// The one-line InputErrors of a request that cannot be answered (before any file is read).
void validate_whatif(const WhatifRequest& request);

struct WhatifAnswer {
  AnswerSource source = AnswerSource::kExpectation;
  WhatifMetric metric = WhatifMetric::kPeak;
  std::string unit;
  std::optional<double> value;  // nullopt: unbounded or saturated (see note)
  std::optional<double> low, high;
  // low/high as a prediction interval at this level (expectation and Z-CART λ*); nullopt: a range
  // whose coverage is not stated (the surface's ±2 prediction standard errors).
  std::optional<double> level;
  std::optional<double> fidelity;
  int fidelity_n = 0;
  std::string note;
  std::optional<std::string> rule;  // Z-CART: the leaf's rule path ("" at the root)
  // The learned λ* whatif stands behind: Z-CART or the recalibrated model, whichever predicted the
  // measured samples best (WhatifResult::learned says by how much).
  bool preferred = false;
};

// One center under a closed workload: what the open solution knows of it (servers, visits,
// demand) with the closed solution's figures.
struct ClosedCenterAnswer {
  std::string name;
  bool pool = false;
  int servers = 1;
  double visits = 1;
  double demand_ms = 0;
  double utilization = 0;
  double queue_length = 0;
  double response_ms = 0;  // per request, all its visits
};

struct WhatifResult {
  Sample sample;
  // Numeric factors set outside their declared levels' range: the answers there extrapolate.
  std::vector<std::string> extrapolated;
  // The expectation first, then (λ* only) Z-CART, the recalibrated model when it is preferred, and
  // the surface.
  std::vector<WhatifAnswer> answers;
  PeakExpectation peak;  // at --rate, else at λ*
  std::optional<ClosedResult> closed;
  std::string closed_method;      // how the closed network was solved
  std::string closed_bottleneck;  // the center with the highest utilization
  std::vector<ClosedCenterAnswer> closed_centers;
  // λ* only, once something was measured: which learned model answers after the expectation, and why.
  std::optional<LearnedModel> learned;
};

// Answers `request` for `config`'s testbed from its [model], the calibrations and searches stored
// at `store_path`, the stored or a freshly fitted Z-CART tree and a finished surface. InputError
// (no [model], a bad sample) before the store is opened; checks for interrupts
// (experiment/interrupt.hpp) between its solves.
WhatifResult answer_whatif(const Config& config, const std::string& store_path, const WhatifRequest& request);

}  // namespace wb
