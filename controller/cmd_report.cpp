// `workbench report`: every stored search of a testbed, measured λ* next to the expectation stored
// with it and the gap between them [000 §2.1, §3.2]; as JSON, or as an HTML file with plots.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "controller/cli.hpp"
#include "controller/output_file.hpp"
#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/probe_check.hpp"
#include "report/html_report.hpp"
#include "report/report_data.hpp"
#include "report/report_json.hpp"

namespace wb {

namespace {

std::string opt_text(const std::optional<double>& v, const char* spec = "{:.1f}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

void print_report(const Config& config, const ReportData& data) {
  const TestbedReport& report = data.expectations;
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
  for (const auto& v : data.searches) {
    const MeasuredVsExpected& r = v.row;
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

struct ReportOptions {
  std::string html;
  std::int64_t search = 0, surface = 0;
};

int run_report(const CommonOptions& common, const ReportOptions& o) {
  Config config = Config::load(common.config);
  if (!o.html.empty()) check_output_path("--html", o.html);
  ReportScope scope;
  if (o.search > 0) scope.search = o.search;
  if (o.surface > 0) scope.surface = o.surface;
  ReportData data = read_report(config, common.store_or(config.store_path()), scope, std::cerr);
  if (!o.html.empty()) {
    const HtmlReport html = render_html(data);
    write_atomically(o.html, html.html);
    fmt::print(stderr, "report: wrote {} ({} plots, {} KiB)\n", o.html, html.plots,
               (html.html.size() + 1023) / 1024);
  }
  if (common.json)
    std::cout << report_json(config, data).dump(2) << "\n";
  else if (o.html.empty())
    print_report(config, data);
  return 0;
}

}  // namespace

Command report_command() {
  return Command{
      "report",
      "List the stored searches of the testbed: measured λ* next to the expectation stored with each "
      "search and the gap (expected - measured) / measured; --json for the same as an object, with every "
      "search's loads, the surfaces, the Z-CART tree, the probes and the cost over time; --html FILE for "
      "a report with plots that opens offline.",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<ReportOptions>();
        add_common_options(app, common);
        app.add_option(
               "--html", o->html,
               "write one self-contained HTML file with the plots: each search's path to λ*, "
               "load-latency curves, surfaces, expectation vs measured, the Z-CART tree, probes, cost "
               "(needs gnuplot and Graphviz)")
            ->type_name("FILE");
        auto* search = app.add_option("--search", o->search, "only this search (its id, as `report` lists)")
                           ->check(CLI::PositiveNumber);
        app.add_option("--surface", o->surface, "only this surface and its searches (its id)")
            ->check(CLI::PositiveNumber)
            ->excludes(search);
        return [&common, o] { return run_report(common, *o); };
      }};
}

}  // namespace wb
