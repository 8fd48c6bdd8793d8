#include "report/html_report.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>

#include "experiment/expectation_record.hpp"
#include "experiment/probe_check.hpp"
#include "report/charts.hpp"
#include "report/plot_batch.hpp"

namespace wb {

namespace {

constexpr int kPlotWidth = 640, kPlotHeight = 400;

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1360px; color: #222; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
h3 { margin-bottom: 0.3em; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td.text, th.text { text-align: left; }
tr.mismatch td { background: #fde8e8; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
img.plot { border: 1px solid #ddd; background: #fff; }
.note { color: #555; font-size: 0.9em; }
)css";

std::string num(double v, const char* spec = "{:.1f}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : std::string("–");
}
std::string opt_num(const std::optional<double>& v, const char* spec = "{:.1f}") {
  return v ? num(*v, spec) : std::string("–");
}

// Collects the plots, draws them in one batch and puts each image where its placeholder is.
class Plots {
 public:
  // A placeholder for a plot drawn later.
  std::string add(std::string script, const std::string& id, const std::string& alt) {
    const std::size_t i = batch_.add(std::move(script), id);
    ids_.push_back(id);
    alts_.push_back(alt);
    return placeholder(i);
  }
  // A placeholder for an SVG drawn already (the tree).
  std::string add_svg(std::string svg, const std::string& id, const std::string& alt) {
    extra_.push_back({std::move(svg), id, alt});
    return fmt::format("\x01svg{}\x01", extra_.size() - 1);
  }
  int count() const { return static_cast<int>(batch_.size() + extra_.size()); }

  std::string fill(std::string html) const {
    const std::vector<std::string> svgs = batch_.render();
    for (std::size_t i = 0; i < svgs.size(); ++i)
      replace(html, placeholder(i), img(svgs[i], ids_[i], alts_[i], kPlotWidth, kPlotHeight));
    for (std::size_t i = 0; i < extra_.size(); ++i)
      replace(html, fmt::format("\x01svg{}\x01", i), img(extra_[i].svg, extra_[i].id, extra_[i].alt, 0, 0));
    return html;
  }

 private:
  struct Extra {
    std::string svg, id, alt;
  };
  static std::string placeholder(std::size_t i) { return fmt::format("\x01plot{}\x01", i); }
  static std::string img(const std::string& svg, const std::string& id, const std::string& alt, int w,
                         int h) {
    std::string size = w > 0 ? fmt::format(" width=\"{}\" height=\"{}\"", w, h) : "";
    return fmt::format("<img class=\"plot\" id=\"{}\" alt=\"{}\"{} src=\"{}\">", html_escape(id),
                       html_escape(alt), size, svg_data_uri(svg));
  }
  static void replace(std::string& html, const std::string& from, const std::string& to) {
    const std::size_t at = html.find(from);
    if (at != std::string::npos) html.replace(at, from.size(), to);
  }
  PlotBatch batch_{kPlotWidth, kPlotHeight};
  std::vector<std::string> ids_, alts_;
  std::vector<Extra> extra_;
};

std::string searches_section(const ReportData& d, Plots& plots) {
  std::string h = "<h2 id=\"searches\">Peak searches</h2>\n";
  if (d.searches.empty()) return h + "<p>No search in this store for this testbed.</p>\n";
  h += fmt::format(
      "<p class=\"note\">Peak-rate region: {}. λ* is the highest load whose response CI overlaps it "
      "[003 §3.3]; the interval is every load the evidence cannot rule out. Gap = (expected − measured) / "
      "measured.</p>\n",
      html_escape(d.region.describe()));
  h += "<table><tr><th>id</th><th class=\"text\">sample</th><th class=\"text\">status</th><th>λ* (req/s)</th>"
       "<th>interval</th><th>expected</th><th>gap</th><th>loads</th><th>trials</th><th>cost (s)</th></tr>\n";
  for (const SearchView& v : d.searches) {
    const auto& s = v.row.search;
    const bool mismatch = v.row.gap && std::abs(*v.row.gap) > kExpectationTolerance;
    std::string interval = "–";
    if (v.interval)
      interval = v.interval->high ? fmt::format("[{:.0f}, {:.0f}]", v.interval->low, *v.interval->high)
                                  : fmt::format("[{:.0f}, ∞)", v.interval->low);
    h += fmt::format(
        "<tr{}><td><a href=\"#search-{}\">{}</a></td><td class=\"text\">{}</td><td class=\"text\">{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0f}</td></tr>\n",
        mismatch ? " class=\"mismatch\"" : "", s.id, s.id, html_escape(s.sample.key()), to_string(s.status),
        opt_num(s.peak_rate, "{:.0f}"), interval,
        v.row.expectation ? opt_num(v.row.expectation->peak_rate, "{:.0f}") : "–",
        v.row.gap ? fmt::format("{:+.1f}%", *v.row.gap * 100) : "–", v.loads.size(), s.trials, s.cost_s);
  }
  h += "</table>\n";
  for (const SearchView& v : d.searches) {
    const auto& s = v.row.search;
    h += fmt::format("<h3 id=\"search-{}\">Search {}: {}</h3>\n", s.id, s.id, html_escape(s.sample.key()));
    if (v.loads.empty()) {
      h += "<p>No load judged yet.</p>\n";
      continue;
    }
    h += "<div class=\"plots\">" +
         plots.add(search_path_plot(d, v), fmt::format("plot-search-{}", s.id),
                   fmt::format("search {}: response per offered load, in the order tried", s.id));
    h += "<table><tr><th>#</th><th>load (req/s)</th><th>trials</th><th>" +
         html_escape(std::string(metric_name(d.region.metric))) +
         " (ms)</th><th>CI</th><th>achieved (req/s)</th><th class=\"text\">verdict</th></tr>\n";
    for (std::size_t i = 0; i < v.loads.size(); ++i) {
      const LoadView& l = v.loads[i];
      h += fmt::format(
          "<tr><td>{}</td><td>{:.0f}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td "
          "class=\"text\">{}{}</td>"
          "</tr>\n",
          i + 1, l.load.rate, l.load.trials, num(l.metric_ms, "{:.2f}"),
          l.load.ci ? fmt::format("[{:.2f}, {:.2f}]", l.load.ci->low, l.load.ci->high) : "–",
          num(l.achieved_rate, "{:.0f}"), html_escape(l.load.verdict),
          l.load.saturated ? " (saturated)" : "");
    }
    h += "</table></div>\n";
  }
  return h;
}

std::string latency_section(const ReportData& d, Plots& plots) {
  std::string h = "<h2 id=\"latency\">Load–latency curves</h2>\n";
  std::map<std::string, std::vector<const SearchView*>> by_sample;
  std::vector<std::string> order;
  for (const SearchView& v : d.searches) {
    if (v.loads.empty()) continue;
    auto& list = by_sample[v.row.search.sample.key()];
    if (list.empty()) order.push_back(v.row.search.sample.key());
    list.push_back(&v);
  }
  if (order.empty()) return h + "<p>No measured load yet.</p>\n";
  h += "<p class=\"note\">Every load the searches of a sample tried, mean and percentiles over its "
       "trials.</p>\n"
       "<div class=\"plots\">\n";
  for (const std::string& key : order) {
    const auto& list = by_sample[key];
    h += plots.add(latency_curve_plot(d, key, list),
                   fmt::format("plot-latency-{}", list.front()->row.search.id),
                   "load–latency curve of " + key) +
         "\n";
  }
  return h + "</div>\n";
}

std::string surfaces_section(const ReportData& d, Plots& plots) {
  std::string h = "<h2 id=\"surfaces\">Response surfaces</h2>\n";
  if (d.surfaces.empty()) return h + "<p>No surface in this store for this testbed.</p>\n";
  for (const SurfaceView& v : d.surfaces) {
    h += fmt::format("<h3 id=\"surface-{}\">Surface {} over {} ({})</h3>\n", v.id, v.id,
                     html_escape(fmt::format("{}", fmt::join(v.factors, ", "))), html_escape(v.status));
    h += fmt::format("<p>{} design points, {} measured. Model: {}{}{}.</p>\n", v.design.size(),
                     v.measured.size(),
                     v.model.empty() ? "none — " + html_escape(v.fit_error) : html_escape(v.model),
                     v.r2 ? fmt::format("; r² {:.4f}", *v.r2) : "",
                     v.cv_mape ? fmt::format("; leave-one-out MAPE {:.2f}%", *v.cv_mape) : "");
    if (v.measured.empty()) continue;
    h += "<div class=\"plots\">";
    if (!v.model.empty())
      h += plots.add(surface_plot(v), fmt::format("plot-surface-{}", v.id),
                     fmt::format("surface {}: fitted λ* with the design points", v.id));
    h += "<table><tr><th class=\"text\">sample</th><th>search</th><th>measured "
         "λ*</th><th>fitted</th><th>error</th>"
         "</tr>\n";
    for (const auto& p : v.measured) {
      h += fmt::format(
          "<tr><td class=\"text\">{}</td><td><a "
          "href=\"#search-{}\">{}</a></td><td>{:.0f}</td><td>{}</td><td>{}</td>"
          "</tr>\n",
          html_escape(p.sample.key()), p.search_id, p.search_id, p.measured, num(p.fitted, "{:.0f}"),
          std::isfinite(p.fitted) ? fmt::format("{:+.1f}%", 100 * (p.measured - p.fitted) / p.fitted) : "–");
    }
    h += "</table></div>\n";
  }
  return h;
}

std::string expectation_section(const ReportData& d, Plots& plots) {
  std::string h = "<h2 id=\"expectation\">Expectation vs measurement</h2>\n";
  const auto& f = d.expectations.fidelity;
  h +=
      f.value
          ? fmt::format(
                "<p>Fidelity of the expectation model: {:.0f}% of {} measured samples within ±{:.0f}%.</p>\n",
                *f.value * 100, f.n, kExpectationTolerance * 100)
          : "<p>No found search with an expectation yet: fidelity unknown.</p>\n";
  const std::string script = expectation_plot(d);
  if (!script.empty())
    h += "<div class=\"plots\">" + plots.add(script, "plot-expectation", "expected against measured λ*") +
         "</div>\n";
  if (d.expectations.mismatches.empty()) return h + "<p>No mismatch recorded.</p>\n";
  h += "<h3>Mismatches</h3>\n<table><tr><th>id</th><th class=\"text\">status</th><th "
       "class=\"text\">sample</th>"
       "<th class=\"text\">what</th><th class=\"text\">figures</th><th class=\"text\">center</th></tr>\n";
  for (const auto& m : d.expectations.mismatches) {
    h += fmt::format(
        "<tr class=\"mismatch\"><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td "
        "class=\"text\">{} "
        "<a href=\"#search-{}\">{}</a></td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>\n",
        m.id, to_string(m.status), html_escape(m.sample.key()),
        m.metric == store::MismatchMetric::kMeanMs ? "fixed-rate run" : "search", m.search_id, m.search_id,
        html_escape(mismatch_figures_text(m)), html_escape(mismatch_center_text(m)));
  }
  return h + "</table>\n";
}

std::string tree_section(const ReportData& d, Plots& plots) {
  std::string h = "<h2 id=\"tree\">Z-CART tree</h2>\n";
  if (!d.tree) return h + "<p>No Z-CART tree stored: no mismatch has been learned yet.</p>\n";
  h += fmt::format(
      "<p class=\"note\">Where the expectation model is wrong [000 §3.3.1]: each leaf predicts λ* as the "
      "expectation times its ratio measured/expected (or caps it); red leaves are off by more than ±{:.0f}%. "
      "{} observations.</p>\n",
      kExpectationTolerance * 100, d.tree->observation_count());
  return h + "<div class=\"plots\">" +
         plots.add_svg(render_dot(tree_dot(*d.tree)), "plot-tree", "the Z-CART tree of this testbed") +
         "</div>\n";
}

std::string probes_section(const ReportData& d) {
  std::string h = "<h2 id=\"probes\">Probes</h2>\n";
  if (d.probes.empty()) return h + "<p>No probe scheduled.</p>\n";
  std::map<std::int64_t, const SearchView*> searches;
  for (const auto& s : d.searches) searches[s.row.search.id] = &s;
  h +=
      "<table><tr><th>id</th><th>mismatch</th><th class=\"text\">sample</th><th class=\"text\">attribute</th>"
      "<th>priority</th><th "
      "class=\"text\">status</th><th>search</th><th>λ*</th><th>expected</th><th>gap</th></tr>\n";
  for (const auto& p : d.probes) {
    std::string search = "–", peak = "–", expected = "–", gap = "–";
    if (p.search_id) {
      search = fmt::format("<a href=\"#search-{0}\">{0}</a>", *p.search_id);
      if (auto it = searches.find(*p.search_id); it != searches.end()) {
        const auto& row = it->second->row;
        peak = opt_num(row.search.peak_rate, "{:.0f}");
        if (row.expectation) expected = opt_num(row.expectation->peak_rate, "{:.0f}");
        if (row.gap) gap = fmt::format("{:+.1f}%", *row.gap * 100);
      }
    }
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{:.3g}</td>"
        "<td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        p.id, p.mismatch_id, html_escape(p.sample.key()), html_escape(p.attribute), p.priority,
        to_string(p.status), search, peak, expected, gap);
  }
  return h + "</table>\n";
}

std::string cost_section(const ReportData& d, Plots& plots) {
  std::string h = "<h2 id=\"cost\">Benchmarking cost</h2>\n";
  if (d.cost.empty()) return h + "<p>No trial yet.</p>\n";
  h += fmt::format("<p>{} trials, {:.1f} min of benchmarking over {:.1f} min of wall time.</p>\n",
                   d.cost.size(), d.cost.back().cumulative_s / 60, d.cost.back().elapsed_s / 60);
  return h + "<div class=\"plots\">" + plots.add(cost_plot(d), "plot-cost", "cumulative benchmarking cost") +
         "</div>\n";
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

HtmlReport render_html(const ReportData& d) {
  Plots plots;
  std::string body;
  body += searches_section(d, plots);
  body += latency_section(d, plots);
  body += surfaces_section(d, plots);
  body += expectation_section(d, plots);
  body += tree_section(d, plots);
  body += probes_section(d);
  body += cost_section(d, plots);
  int trials = 0;
  for (const auto& s : d.searches) trials += s.row.search.trials;
  std::string head = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>workbench report: {0}</title>\n<style>{1}</style>\n</head>\n<body>\n"
      "<h1>workbench report: {0}</h1>\n<p class=\"note\">Store {2}; {3} searches, {4} surfaces, {5} trials. "
      "Peak-rate region: {6}.</p>\n"
      "<nav><a href=\"#searches\">searches</a><a href=\"#latency\">load–latency</a><a "
      "href=\"#surfaces\">surfaces</a>"
      "<a href=\"#expectation\">expectation</a><a href=\"#tree\">Z-CART tree</a><a "
      "href=\"#probes\">probes</a>"
      "<a href=\"#cost\">cost</a></nav>\n",
      html_escape(d.testbed), kStyle, html_escape(d.store_path), d.searches.size(), d.surfaces.size(), trials,
      html_escape(d.region.describe()));
  HtmlReport r;
  r.plots = plots.count();
  r.html = plots.fill(head + body + "</body>\n</html>\n");
  return r;
}

}  // namespace wb
