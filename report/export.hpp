#pragma once
// `workbench export`: the store's data as flat tables for pandas, R or a spreadsheet — one row per
// search, judged load, trial, measured surface point, or whatif answer for a stored sample. Columns
// carry the keys of the JSON contracts (DESIGN.md "Command contracts", report/report_json.cpp,
// `whatif --json`), nested keys joined with '.', and a sample as one column per factor,
// `sample.<factor>`. The CSV and the JSON rendering of a table carry the same cells.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/config.hpp"
#include "report/report_data.hpp"

namespace wb {

enum class ExportWhat { kSearches, kLoads, kTrials, kSurfaces, kWhatif };
// "searches", "loads", "trials", "surfaces" or "whatif"; InputError otherwise.
ExportWhat parse_export_what(std::string_view text);
std::string_view to_string(ExportWhat what);
// Every name parse_export_what takes, in the order above.
std::vector<std::string> export_what_names();

// One cell: missing (empty in CSV, null in JSON), a whole number, a finite number, a flag or text.
using ExportCell = std::variant<std::monostate, std::int64_t, double, bool, std::string>;

struct ExportTable {
  std::vector<std::string> columns;
  std::vector<std::vector<ExportCell>> rows;  // each has one cell per column
};

struct ExportRequest {
  ExportWhat what = ExportWhat::kSearches;
  // As `report`: one search, or one surface with its searches (its design samples for whatif).
  ReportScope scope;
};

// Reads the store at `path` as `workbench report` does (report/report_data.hpp) and builds the
// table. InputError, before anything is read, when the store does not exist, for whatif without a
// [model], and for surfaces scoped to a search; and for an id the store does not hold. whatif
// answers each distinct sample with answer_whatif (seconds each) and throws Interrupted between and
// during them on Ctrl-C (experiment/interrupt.hpp). Progress lines go to `log`.
ExportTable export_table(const Config& config, const std::string& path, const ExportRequest& request,
                         std::ostream& log);

// RFC 4180: a header line, CRLF line ends, fields with a comma, quote, CR or LF quoted with their
// quotes doubled; numbers in the shortest text that reads back to the same double.
std::string export_csv(const ExportTable& table);
// A JSON array with one flat object per row, keyed by the columns in their order, one row a line.
std::string export_json(const ExportTable& table);

}  // namespace wb
