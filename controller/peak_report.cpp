#include "controller/peak_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <ostream>

namespace wb {

namespace {

// A load at which no request completed has no response time: its trials' "mean" of 0 would read
// as instant answers, so its mean and CI are left empty (null in JSON).
bool nothing_completed(const TestLoad& l) {
  return !l.trials.empty() &&
         std::all_of(l.trials.begin(), l.trials.end(), [](const TrialResult& t) { return t.completed == 0; });
}

}  // namespace

nlohmann::json peak_json(const PeakReport& r) {
  const SearchResult& s = *r.result;
  nlohmann::json j;
  j["search_id"] = r.search_id;
  j["testbed"] = r.config->name();
  j["sample"] = sample_json(*r.config, r.sample);
  j["target"] = {{"confidence", r.target.confidence}, {"accuracy", r.target.accuracy}};
  j["policy"] = r.policy;
  j["seed"] = r.seed;
  j["status"] = to_string(s.status);
  // The loads' and the claim's figures are of this metric: the mean or a percentile per trial.
  const PeakRegion& region = r.config->peak().region;
  j["region"] = {{"metric", metric_name(region.metric)}, {"sat_ms", region.sat_ms}, {"width", region.width}};
  if (has_peak(s.status)) {
    j["peak_rate"] = s.peak_rate;
    j["response"] = {{"mean_ms", s.response.mean},
                     {"ci_low_ms", s.response.low},
                     {"ci_high_ms", s.response.high},
                     {"accuracy", s.response.accuracy()}};
    j["peak_interval"] = {
        {"low", s.peak_low},
        {"high", std::isfinite(s.peak_high) ? nlohmann::json(s.peak_high) : nlohmann::json(nullptr)}};
    if (s.status == SearchStatus::kCliff || s.status == SearchStatus::kBistable) j["message"] = s.message;
  } else {
    j["peak_rate"] = nullptr;
    j["response"] = nullptr;
    j["message"] = s.message;
  }
  nlohmann::json loads = nlohmann::json::array();
  for (const auto& l : s.loads) {
    nlohmann::json lj{{"rate", l.rate},
                      {"trials", l.trials.size()},
                      {"runlength_s", l.runlength_s},
                      {"saturated", l.saturated},
                      {"verdict", to_string(l.verdict)}};
    if (nothing_completed(l)) {
      lj["mean_ms"] = nullptr;
      lj["ci_low_ms"] = nullptr;
      lj["ci_high_ms"] = nullptr;
    } else if (l.trials.size() >= 2) {
      lj["mean_ms"] = l.ci.mean;
      lj["ci_low_ms"] = l.ci.low;
      lj["ci_high_ms"] = l.ci.high;
    } else {
      lj["mean_ms"] = l.trials.empty() ? 0.0 : region.value(l.trials.front());
      lj["ci_low_ms"] = nullptr;
      lj["ci_high_ms"] = nullptr;
    }
    loads.push_back(lj);
  }
  j["loads"] = loads;
  j["trials"] = s.trials;
  j["cost_s"] = s.cost_s;
  return j;
}

void print_peak(std::ostream& out, const PeakReport& r) {
  const SearchResult& s = *r.result;
  const PeakRegion& region = r.config->peak().region;
  const bool on_mean = region.metric == ResponseMetric::kMean;
  fmt::print(out, "peak search #{} on {}: {}   target {}   policy {}\n", r.search_id, r.config->name(),
             r.sample.key(), r.target.to_string(), r.policy);
  fmt::print(out, "  peak-rate region: {}\n\n", region.describe());
  fmt::print(out, "  {:>10}  {:>6}  {:>9}  {:>9}  {:>21}  {}\n", "rate/s", "trials", "runlength",
             on_mean ? std::string("mean ms") : fmt::format("{} ms", metric_name(region.metric)),
             fmt::format("{:g}% CI ms", r.target.confidence * 100), "verdict");
  for (const auto& l : s.loads) {
    const bool none_completed = nothing_completed(l);
    std::string ci =
        l.trials.size() >= 2 && !none_completed ? fmt::format("[{:.2f}, {:.2f}]", l.ci.low, l.ci.high) : "-";
    double mean =
        l.trials.size() >= 2 ? l.ci.mean : (l.trials.empty() ? 0.0 : region.value(l.trials.front()));
    std::string mean_text = none_completed ? "-" : fmt::format("{:.2f}", mean);
    fmt::print(out, "  {:>10.1f}  {:>6}  {:>7g} s  {:>9}  {:>21}  {}{}\n", l.rate, l.trials.size(),
               l.runlength_s, mean_text, ci, to_string(l.verdict),
               none_completed ? " (saturated: no request completed)"
               : l.saturated  ? " (saturated)"
                              : "");
  }
  out << "\n";
  if (has_peak(s.status)) {
    if (s.status == SearchStatus::kCliff) fmt::print(out, "cliff: {}\n", s.message);
    if (s.status == SearchStatus::kBistable) fmt::print(out, "{}\n", s.message);
    fmt::print(out, "peak rate λ* = {:.1f} requests/s{}\n", s.peak_rate,
               s.status == SearchStatus::kCliff      ? " (the knee: the last load below the cliff)"
               : s.status == SearchStatus::kBistable ? " (the highest load below the bistable band)"
                                                     : "");
    fmt::print(out,
               "  {} response {:.2f} ms, {:g}% CI [{:.2f}, {:.2f}] ms, accuracy {:.1f}% (target {:g}%)\n",
               on_mean ? std::string("mean") : fmt::format("mean {}", metric_name(region.metric)),
               s.response.mean, r.target.confidence * 100, s.response.low, s.response.high,
               s.response.accuracy() * 100, r.target.accuracy * 100);
    fmt::print(out, "  loads that could be the peak: [{:.1f}, {}] requests/s\n", s.peak_low,
               std::isfinite(s.peak_high) ? fmt::format("{:.1f}", s.peak_high) : std::string("unbounded"));
  } else {
    fmt::print(out, "no peak rate: {} — {}\n", to_string(s.status), s.message);
  }
  fmt::print(out, "cost: {:.0f} s of benchmarking time ({:.2f} h) in {} trials\n", s.cost_s, s.cost_s / 3600,
             s.trials);
}

}  // namespace wb
