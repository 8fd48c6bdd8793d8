// `workbench report`: every stored search of a testbed, measured λ* next to the expectation stored
// with it and the gap between them [000 §2.1, §3.2].
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/peak_report.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/json_values.hpp"
#include "experiment/probe_check.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

std::string opt_text(const std::optional<double>& v, const char* spec = "{:.1f}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

// DESIGN.md "Command contracts": report --json.
nlohmann::json report_json(const Config& config, const TestbedReport& report) {
  nlohmann::json searches = nlohmann::json::array();
  for (const auto& r : report.searches) {
    nlohmann::json j{
        {"search_id", r.search.id},
        {"sample", sample_json(config, r.search.sample)},
        {"status", to_string(r.search.status)},
        {"measured", opt_json(r.search.peak_rate)},
        {"trials", r.search.trials},
        {"cost_s", r.search.cost_s},
        {"expected", r.expectation ? opt_json(r.expectation->peak_rate) : nlohmann::json()},
        {"bottleneck", r.expectation ? nlohmann::json(r.expectation->bottleneck) : nlohmann::json()},
        {"gap", opt_json(r.gap)},
        {"within_tolerance",
         r.gap ? nlohmann::json(std::abs(*r.gap) <= kExpectationTolerance) : nlohmann::json()}};
    if (r.expectation) j["calibrated"] = nlohmann::json::parse(r.expectation->calibrated_json);
    searches.push_back(j);
  }
  nlohmann::json mismatches = nlohmann::json::array();
  for (const auto& m : report.mismatches) {
    mismatches.push_back({{"mismatch_id", m.id},
                          {"search_id", m.search_id},
                          {"sample", sample_json(config, m.sample)},
                          {"metric", to_string(m.metric)},
                          {"expected", m.expected},
                          {"measured", m.measured},
                          {"ratio", m.ratio},
                          {"status", to_string(m.status)},
                          {"attributes", nlohmann::json::parse(m.attributes_json)},
                          {"center", m.center ? nlohmann::json(*m.center) : nlohmann::json()},
                          {"center_detail", mismatch_center_json(m)}});
  }
  return {{"testbed", config.name()},           {"searches", searches},
          {"tolerance", kExpectationTolerance}, {"fidelity", opt_json(report.fidelity.value)},
          {"fidelity_n", report.fidelity.n},    {"mismatches", mismatches}};
}

void print_report(const Config& config, const TestbedReport& report) {
  fmt::print("searches of {} in {}: measured λ* vs the expectation stored with each\n", config.name(),
             report.store_path);
  const PeakRegion& region = config.peak().region;
  fmt::print("peak-rate region: {}", region.describe());
  // The expectation models solve for the mean; a percentile region is a different λ*.
  if (region.metric != ResponseMetric::kMean)
    fmt::print(" (expectations: mean response time {:g} ms, r_sat_ms)", config.peak().r_sat_ms);
  fmt::print("\n");
  fmt::print("  {:>4}  {:<36} {:<9} {:>10} {:>10} {:>8}  {}\n", "id", "sample", "status", "measured",
             "expected", "gap", "bottleneck");
  for (const auto& r : report.searches) {
    std::string gap = r.gap ? fmt::format("{:+.1f}%", *r.gap * 100) : std::string("-");
    if (r.gap && std::abs(*r.gap) > kExpectationTolerance) gap += "!";
    fmt::print("  {:>4}  {:<36} {:<9} {:>10} {:>10} {:>8}  {}\n", r.search.id, r.search.sample.key(),
               to_string(r.search.status), opt_text(r.search.peak_rate),
               r.expectation ? opt_text(r.expectation->peak_rate) : "-", gap,
               r.expectation ? r.expectation->bottleneck : "");
  }
  if (report.fidelity.value) {
    fmt::print(
        "gap = (expected - measured) / measured; ! marks gaps beyond {0:.0f}%. fidelity: {1:.0f}% of {2} "
        "within {0:.0f}%\n",
        kExpectationTolerance * 100, *report.fidelity.value * 100, report.fidelity.n);
  } else {
    fmt::print("no found search with an expectation yet: fidelity unknown\n");
  }
  if (!report.mismatches.empty()) fmt::print("mismatches:\n");
  for (const auto& m : report.mismatches) {
    std::string center = mismatch_center_text(m);
    fmt::print("  {:>4}  {:<6} {} ({} {}): {}{}\n", m.id, to_string(m.status), m.sample.key(),
               m.metric == store::MismatchMetric::kMeanMs ? "fixed-rate run" : "search", m.search_id,
               mismatch_figures_text(m), center.empty() ? "" : "; center " + center);
  }
}

int run_report(const CommonOptions& common) {
  Config config = Config::load(common.config);
  TestbedReport report = testbed_report(config, common.store_or(config.store_path()), std::cerr);
  if (common.json)
    std::cout << report_json(config, report).dump(2) << "\n";
  else
    print_report(config, report);
  return 0;
}

}  // namespace

Command report_command() {
  return Command{
      "report",
      "List the stored searches of the testbed: measured λ* next to the expectation stored with each "
      "search and the gap (expected - measured) / measured; --json for the same as an object.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        add_common_options(app, common);
        return [&common] { return run_report(common); };
      }};
}

}  // namespace wb
