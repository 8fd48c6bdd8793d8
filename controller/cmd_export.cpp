// `workbench export`: the store's searches, loads, trials, measured surface points or whatif answers
// as one flat CSV or JSON table, for pandas, R or a spreadsheet (report/export.hpp).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "controller/cli.hpp"
#include "controller/output_file.hpp"
#include "core/error.hpp"
#include "report/export.hpp"

namespace wb {

namespace {

struct ExportOptions {
  std::string format = "csv";
  std::string what;
  std::string out;
  std::int64_t search = 0, surface = 0;
};

int run_export(const CommonOptions& common, const ExportOptions& o) {
  Config config = Config::load(common.config);
  if (!o.out.empty()) check_output_path("--out", o.out);
  ExportRequest request;
  request.what = parse_export_what(o.what);
  if (o.search > 0) request.scope.search = o.search;
  if (o.surface > 0) request.scope.surface = o.surface;
  const ExportTable table = export_table(config, common.store_or(config.store_path()), request, std::cerr);
  const std::string text = o.format == "json" ? export_json(table) : export_csv(table);
  if (o.out.empty()) {
    std::cout << text << std::flush;
    return 0;
  }
  write_atomically(o.out, text);
  fmt::print(stderr, "export: wrote {} rows of {} to {}\n", table.rows.size(), to_string(request.what),
             o.out);
  return 0;
}

}  // namespace

Command export_command() {
  return Command{
      "export",
      "Write the store's data as one flat table, CSV (RFC 4180) or JSON (an array of flat objects with the "
      "same keys as the CSV header), for pandas, R or a spreadsheet. --what chooses the rows:\n"
      "  searches  one per search: search_id, status, policy, target.confidence, target.accuracy, seed, "
      "measured (λ*), peak_interval.low/high, trials, cost_s, expected (the expectation's λ*), bottleneck, "
      "gap = (expected - measured) / measured, within_tolerance\n"
      "  loads     one per judged load: search_id, order, load_index, rate, runlength_s, trials, "
      "ci_ms.mean/low/high (CI over the trials of the peak-rate region's metric: the mean response time, or "
      "[peak] percentile's), saturated, verdict\n"
      "  trials    one per trial: search_id, load_index, offered_rate, achieved_rate, runlength_s, sent, "
      "completed, errors, mean_ms, p50_ms, p90_ms, p95_ms, p99_ms, max_ms, cost_s, created_at, and "
      "stage_ms.<stage> when the server reported its stages\n"
      "  surfaces  one per measured point of each surface: surface_id, status, model, fit_error, r2, "
      "mape_loo, search_id, measured, fitted, error = (measured - fitted) / fitted\n"
      "  whatif    one per answer of `workbench whatif` for λ* at every sample the store has a search of "
      "and every surface's design sample: source, metric, unit, value, low, high, level, fidelity, "
      "fidelity_n, preferred, rule, note (seconds per sample; Ctrl-C stops it)\n"
      "Column names are the keys of the --json outputs of report and whatif, nested keys joined with "
      "'.'; the sample is one column per factor, sample.<factor>. Numbers read back exactly; a missing "
      "value is an empty field in CSV and null in JSON.\n"
      "Example: workbench export --config configs/sim.toml --what trials --out trials.csv",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<ExportOptions>();
        add_common_options(app, common);
        // --format says which output; a --json flag would be a second way to say it.
        app.remove_option(app.get_option("--json"));
        app.add_option("--what,-w", o->what, "searches, loads, trials, surfaces or whatif")
            ->required()
            ->check(CLI::IsMember(export_what_names()));
        app.add_option("--format,-f", o->format, "csv (default) or json")
            ->check(CLI::IsMember({"csv", "json"}));
        app.add_option("--out,-o", o->out,
                       "write the table to this file (written whole, or not at all), not to stdout");
        auto* search = app.add_option("--search", o->search,
                                      "only this search (its id, as `report` lists): its row, loads, trials "
                                      "or its sample's whatif answers")
                           ->check(CLI::PositiveNumber);
        app.add_option("--surface", o->surface,
                       "only this surface (its id): its points, its searches and their loads and trials, or "
                       "whatif at its samples")
            ->check(CLI::PositiveNumber)
            ->excludes(search);
        return [&common, o] { return run_export(common, *o); };
      }};
}

}  // namespace wb
