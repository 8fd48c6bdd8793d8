#include "report/export.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/whatif.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

constexpr std::string_view kExportWhatNames[] = {"searches", "loads", "trials", "surfaces", "whatif"};

// A number that is not finite has no value to export: missing, as in the JSON reports.
ExportCell number_cell(double v) {
  if (!std::isfinite(v)) return std::monostate{};
  return v;
}
ExportCell number_cell(const std::optional<double>& v) { return v ? number_cell(*v) : std::monostate{}; }
ExportCell whole_cell(std::int64_t v) { return v; }
ExportCell whole_cell(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// Rows filled cell by column name; every column is named up front, so all rows have the same cells.
class ExportRows {
 public:
  explicit ExportRows(std::vector<std::string> columns) {
    table_.columns = std::move(columns);
    for (std::size_t i = 0; i < table_.columns.size(); ++i) index_.emplace(table_.columns[i], i);
  }
  void begin_row() { table_.rows.emplace_back(table_.columns.size()); }
  void set(const std::string& column, ExportCell cell) {
    auto it = index_.find(column);
    if (it == index_.end()) throw Error(fmt::format("export: no column {} was declared", column));
    table_.rows.back()[it->second] = std::move(cell);
  }
  ExportTable finish() { return std::move(table_); }

 private:
  ExportTable table_;
  std::map<std::string, std::size_t> index_;
};

// The factors of `samples` as columns: the config's in its order, then any the config no longer
// declares (a store outlives edits of its config), by name.
std::vector<std::string> export_factor_names(const Config& config,
                                             const std::vector<const Sample*>& samples) {
  std::vector<std::string> names = config.factor_names();
  std::set<std::string> extra;
  for (const Sample* s : samples)
    for (const auto& [name, value] : s->values())
      if (config.factor(name) == nullptr) extra.insert(name);
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

std::vector<std::string> with_sample_columns(std::vector<std::string> before,
                                             const std::vector<std::string>& factors,
                                             const std::vector<std::string>& after) {
  for (const auto& f : factors) before.push_back("sample." + f);
  before.insert(before.end(), after.begin(), after.end());
  return before;
}

// A numeric factor's level as a number (sample_json in experiment/json_values.hpp), else its text.
void set_sample_cells(ExportRows& rows, const Config& config, const Sample& sample) {
  for (const auto& [name, value] : sample.values()) {
    const Factor* f = config.factor(name);
    ExportCell cell = value;
    if (f != nullptr && f->numeric) {
      try {
        cell = number_cell(sample.numeric(name));
      } catch (const Error&) {
        // A level that is no number any more: its text, as stored.
      }
    }
    rows.set("sample." + name, std::move(cell));
  }
}

ExportTable searches_table(const Config& config, const ReportData& data) {
  std::vector<const Sample*> samples;
  for (const SearchView& v : data.searches) samples.push_back(&v.row.search.sample);
  ExportRows rows(with_sample_columns(
      {"search_id"}, export_factor_names(config, samples),
      {"status", "policy", "target.confidence", "target.accuracy", "seed", "measured", "peak_interval.low",
       "peak_interval.high", "trials", "cost_s", "expected", "bottleneck", "gap", "within_tolerance"}));
  for (const SearchView& v : data.searches) {
    const MeasuredVsExpected& r = v.row;
    const store::SearchRecord& s = r.search;
    rows.begin_row();
    rows.set("search_id", whole_cell(s.id));
    set_sample_cells(rows, config, s.sample);
    rows.set("status", std::string(to_string(s.status)));
    rows.set("policy", s.policy);
    rows.set("target.confidence", number_cell(s.confidence));
    rows.set("target.accuracy", number_cell(s.accuracy));
    if (s.seed) rows.set("seed", whole_cell(*s.seed));
    rows.set("measured", number_cell(s.peak_rate));
    if (v.interval) {
      rows.set("peak_interval.low", number_cell(v.interval->low));
      rows.set("peak_interval.high", number_cell(v.interval->high));
    }
    rows.set("trials", whole_cell(std::int64_t{s.trials}));
    rows.set("cost_s", number_cell(s.cost_s));
    if (r.expectation) {
      rows.set("expected", number_cell(r.expectation->peak_rate));
      rows.set("bottleneck", r.expectation->bottleneck);
    }
    rows.set("gap", number_cell(r.gap));
    if (r.gap) rows.set("within_tolerance", std::abs(*r.gap) <= kExpectationTolerance);
  }
  return rows.finish();
}

// Every judged load as the store holds it, also one whose trials were never stored (report's
// LoadView leaves those out): one row per row of the loads table.
ExportTable loads_table(const std::string& path, const ReportData& data) {
  ExportRows rows({"search_id", "order", "load_index", "rate", "runlength_s", "trials", "ci_ms.mean",
                   "ci_ms.low", "ci_ms.high", "saturated", "verdict"});
  store::Store store(path);
  for (const SearchView& v : data.searches) {
    std::int64_t order = 0;
    for (const store::StoredLoad& l : store.loads(v.row.search.id)) {
      rows.begin_row();
      rows.set("search_id", whole_cell(v.row.search.id));
      rows.set("order", whole_cell(++order));
      rows.set("load_index", whole_cell(std::int64_t{l.load_index}));
      rows.set("rate", number_cell(l.rate));
      rows.set("runlength_s", number_cell(l.runlength_s));
      rows.set("trials", whole_cell(std::int64_t{l.trials}));
      if (l.ci) {
        rows.set("ci_ms.mean", number_cell(l.ci->mean));
        rows.set("ci_ms.low", number_cell(l.ci->low));
        rows.set("ci_ms.high", number_cell(l.ci->high));
      }
      rows.set("saturated", l.saturated);
      rows.set("verdict", l.verdict);
    }
  }
  return rows.finish();
}

ExportTable trials_table(const ReportData& data) {
  // The SUT's stages (refserver's), one column each, when some trial measured them.
  std::set<std::string> stages;
  for (const SearchView& v : data.searches)
    for (const store::StoredTrial& t : v.trials)
      for (const auto& [stage, ms] : t.trial.stage_ms) stages.insert(stage);
  std::vector<std::string> columns{"search_id",   "load_index", "offered_rate", "achieved_rate",
                                   "runlength_s", "sent",       "completed",    "errors",
                                   "mean_ms",     "p50_ms",     "p90_ms",       "p95_ms",
                                   "p99_ms",      "max_ms",     "cost_s",       "created_at"};
  for (const std::string& stage : stages) columns.push_back("stage_ms." + stage);
  ExportRows rows(std::move(columns));
  for (const SearchView& v : data.searches) {
    for (const store::StoredTrial& st : v.trials) {
      const TrialResult& t = st.trial;
      rows.begin_row();
      rows.set("search_id", whole_cell(st.search_id));
      rows.set("load_index", whole_cell(std::int64_t{st.load_index}));
      rows.set("offered_rate", number_cell(t.offered_rate));
      rows.set("achieved_rate", number_cell(t.achieved_rate));
      rows.set("runlength_s", number_cell(t.runlength_s));
      rows.set("sent", whole_cell(t.sent));
      rows.set("completed", whole_cell(t.completed));
      rows.set("errors", whole_cell(t.errors));
      rows.set("mean_ms", number_cell(t.mean_ms));
      rows.set("p50_ms", number_cell(t.p50_ms));
      rows.set("p90_ms", number_cell(t.p90_ms));
      rows.set("p95_ms", number_cell(t.p95_ms));
      rows.set("p99_ms", number_cell(t.p99_ms));
      rows.set("max_ms", number_cell(t.max_ms));
      rows.set("cost_s", number_cell(t.cost_s));
      rows.set("created_at", st.created_at);
      for (const auto& [stage, ms] : t.stage_ms) rows.set("stage_ms." + stage, number_cell(ms));
    }
  }
  return rows.finish();
}

// The measured points of each surface with the fit read_report refitted: the points a search found
// λ* for (a surface nothing was measured of has no row).
ExportTable surfaces_table(const Config& config, const ReportData& data) {
  std::vector<const Sample*> samples;
  for (const SurfaceView& s : data.surfaces)
    for (const SurfaceView::Point& p : s.measured) samples.push_back(&p.sample);
  ExportRows rows(with_sample_columns({"surface_id", "status", "model", "fit_error", "r2", "mape_loo"},
                                      export_factor_names(config, samples),
                                      {"search_id", "measured", "fitted", "error"}));
  for (const SurfaceView& s : data.surfaces) {
    for (const SurfaceView::Point& p : s.measured) {
      rows.begin_row();
      rows.set("surface_id", whole_cell(s.id));
      rows.set("status", s.status);
      if (!s.model.empty()) rows.set("model", s.model);
      if (!s.fit_error.empty()) rows.set("fit_error", s.fit_error);
      rows.set("r2", number_cell(s.r2));
      rows.set("mape_loo", number_cell(s.cv_mape));
      set_sample_cells(rows, config, p.sample);
      rows.set("search_id", whole_cell(p.search_id));
      rows.set("measured", number_cell(p.measured));
      rows.set("fitted", number_cell(p.fitted));
      if (std::isfinite(p.fitted)) rows.set("error", number_cell((p.measured - p.fitted) / p.fitted));
    }
  }
  return rows.finish();
}

// The samples whatif is asked about: each searched one, then each surface's design samples, once,
// in that order.
std::vector<Sample> whatif_samples(const ReportData& data) {
  std::vector<Sample> out;
  std::set<Sample> seen;
  auto add = [&](const Sample& s) {
    if (seen.insert(s).second) out.push_back(s);
  };
  for (const SearchView& v : data.searches) add(v.row.search.sample);
  for (const SurfaceView& s : data.surfaces)
    for (const Sample& d : s.design) add(d);
  return out;
}

ExportTable whatif_table(const Config& config, const std::string& path, const ReportData& data,
                         std::ostream& log) {
  const std::vector<Sample> samples = whatif_samples(data);
  std::vector<const Sample*> pointers;
  pointers.reserve(samples.size());
  for (const Sample& s : samples) pointers.push_back(&s);
  ExportRows rows(with_sample_columns({}, export_factor_names(config, pointers),
                                      {"source", "metric", "unit", "value", "low", "high", "level",
                                       "fidelity", "fidelity_n", "preferred", "rule", "note"}));
  if (!samples.empty())
    log << fmt::format("export: answering whatif for {} sample{} (seconds each; Ctrl-C stops)\n",
                       samples.size(), samples.size() == 1 ? "" : "s");
  for (const Sample& sample : samples) {
    check_interrupt();
    WhatifRequest request;
    request.set = sample.key();
    const WhatifResult w = answer_whatif(config, path, request);
    for (const WhatifAnswer& a : w.answers) {
      rows.begin_row();
      set_sample_cells(rows, config, w.sample);
      rows.set("source", std::string(source_name(a.source)));
      rows.set("metric", std::string(metric_name(a.metric)));
      rows.set("unit", a.unit);
      rows.set("value", number_cell(a.value));
      rows.set("low", number_cell(a.low));
      rows.set("high", number_cell(a.high));
      rows.set("level", number_cell(a.level));
      rows.set("fidelity", number_cell(a.fidelity));
      rows.set("fidelity_n", whole_cell(std::int64_t{a.fidelity_n}));
      rows.set("preferred", a.preferred);
      if (a.rule) rows.set("rule", *a.rule);
      if (!a.note.empty()) rows.set("note", a.note);
    }
  }
  return rows.finish();
}

// RFC 4180 §2.6-2.7: a field with a separator, a quote or a line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

struct CsvText {
  std::string operator()(std::monostate) const { return {}; }
  std::string operator()(std::int64_t v) const { return fmt::format("{}", v); }
  // fmt's "{}" is the shortest text that reads back as the same double.
  std::string operator()(double v) const { return fmt::format("{}", v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(const std::string& v) const { return csv_field(v); }
};

struct JsonValue {
  nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
  nlohmann::ordered_json operator()(std::int64_t v) const { return v; }
  nlohmann::ordered_json operator()(double v) const { return v; }
  nlohmann::ordered_json operator()(bool v) const { return v; }
  nlohmann::ordered_json operator()(const std::string& v) const { return v; }
};

}  // namespace

ExportWhat parse_export_what(std::string_view text) {
  for (std::size_t i = 0; i < std::size(kExportWhatNames); ++i)
    if (text == kExportWhatNames[i]) return static_cast<ExportWhat>(i);
  throw InputError(fmt::format("--what {}: must be searches, loads, trials, surfaces or whatif", text));
}

std::string_view to_string(ExportWhat what) { return kExportWhatNames[static_cast<std::size_t>(what)]; }

std::vector<std::string> export_what_names() {
  return {std::begin(kExportWhatNames), std::end(kExportWhatNames)};
}

ExportTable export_table(const Config& config, const std::string& path, const ExportRequest& request,
                         std::ostream& log) {
  if (request.what == ExportWhat::kWhatif && !config.model())
    throw InputError(fmt::format("{}: no [model] section; --what whatif answers from the expectation model",
                                 config.file()));
  if (request.what == ExportWhat::kSurfaces && request.scope.search)
    throw InputError("--search: --what surfaces exports surfaces; select one with --surface");
  // Only the surfaces table shows fits; whatif refits what it needs itself.
  ReportScope scope = request.scope;
  scope.fit_surfaces = request.what == ExportWhat::kSurfaces;
  const ReportData data = read_report(config, path, scope, log);
  switch (request.what) {
    case ExportWhat::kSearches: return searches_table(config, data);
    case ExportWhat::kLoads: return loads_table(path, data);
    case ExportWhat::kTrials: return trials_table(data);
    case ExportWhat::kSurfaces: return surfaces_table(config, data);
    case ExportWhat::kWhatif: return whatif_table(config, path, data, log);
  }
  throw Error("export: unknown table");
}

std::string export_csv(const ExportTable& table) {
  std::string out;
  auto line = [&out](const auto& cells, auto&& text) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out += ',';
      out += text(cells[i]);
    }
    out += "\r\n";
  };
  line(table.columns, csv_field);
  for (const auto& row : table.rows) line(row, [](const ExportCell& c) { return std::visit(CsvText{}, c); });
  return out;
}

std::string export_json(const ExportTable& table) {
  if (table.rows.empty()) return "[]\n";
  std::string out = "[\n";
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < table.columns.size(); ++i)
      row[table.columns[i]] = std::visit(JsonValue{}, table.rows[r][i]);
    out += row.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    out += r + 1 < table.rows.size() ? ",\n" : "\n";
  }
  out += "]\n";
  return out;
}

}  // namespace wb
