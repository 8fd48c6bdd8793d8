#include "report/charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "harness/local_executor.hpp"
#include "report/plot_batch.hpp"
#include "report/scratch_dir.hpp"

namespace wb {

namespace {

// Colours a reader can tell apart (and in grey): blue, orange, green, red, purple.
constexpr const char* kBlue = "#1f77b4";
constexpr const char* kOrange = "#ff7f0e";
constexpr const char* kGreen = "#2ca02c";
constexpr const char* kRed = "#d62728";
constexpr const char* kPurple = "#9467bd";

// A log axis once the values span more than this factor: responses near saturation grow
// without bound, and a linear axis then flattens every load below it.
constexpr double kLogSpan = 30;

bool maybe_log_y(std::string& s, double lo, double hi) {
  if (!(lo > 0 && hi / lo > kLogSpan)) return false;
  s += "set logscale y\n";
  return true;
}

std::string g(double v) { return fmt::format("{:.6g}", v); }

std::string metric_label(const PeakRegion& region) {
  return fmt::format("{} response time (ms)", metric_name(region.metric));
}

}  // namespace

std::string search_path_plot(const ReportData& data, const SearchView& v) {
  const auto& s = v.row.search;
  const std::string block = fmt::format("$path{}", s.id);
  std::string out = block + " << EOD\n";
  // Loads where nothing completed have no response time: they are marked at the top instead.
  double lo = data.region.low_ms(), hi = data.region.high_ms();
  std::string saturated;
  int rows = 0;
  double xlo = std::numeric_limits<double>::infinity(), xhi = 0;
  for (std::size_t i = 0; i < v.loads.size(); ++i) {
    const LoadView& l = v.loads[i];
    xlo = std::min(xlo, l.load.rate);
    xhi = std::max(xhi, l.load.rate);
    const double y = l.load.ci ? l.load.ci->mean : l.metric_ms;
    if (!(y > 0)) {
      saturated += fmt::format(
          "set label {} '{}' at first {}, graph 0.96 point pt 9 ps 1.3 lc rgb '{}' offset char 0.8,0 tc rgb "
          "'#444444'\n",
          i + 1, i + 1, g(l.load.rate), kRed);
      continue;
    }
    const double high = l.load.ci ? l.load.ci->high : y;
    ++rows;
    out += fmt::format("{} {} {} {} {} {}\n", i + 1, g(l.load.rate), g(y), g(l.load.ci ? l.load.ci->low : y),
                       g(high), std::isfinite(l.mean_ms) ? g(l.mean_ms) : std::string("NaN"));
    lo = std::min(lo, y);
    if (l.mean_ms > 0) lo = std::min(lo, l.mean_ms);  // drawn beside a percentile
    hi = std::max(hi, high);
  }
  out += "EOD\n";
  out += fmt::format("set title {}\n", gnuplot_quote(fmt::format("search {}: {} ({})", s.id, s.sample.key(),
                                                                 to_string(s.status))));
  out += "set xlabel 'offered load (requests/s)'\n";
  out += fmt::format("set ylabel {}\n", gnuplot_quote(metric_label(data.region)));
  out +=
      "set grid\nset key below left Left reverse\nset offsets graph 0.05, graph 0.05, graph 0.05, graph "
      "0.05\n";
  out += saturated;
  // Labels do not widen an autoscaled range, and a search where nothing completed has no point to
  // scale on: the ranges are set so that every tried load shows.
  const double pad = xhi > xlo ? (xhi - xlo) * 0.06 : std::max(xhi * 0.1, 1.0);
  out += fmt::format("set xrange [{}:{}]\n", g(std::max(0.0, xlo - pad)), g(xhi + pad));
  if (rows == 0) out += fmt::format("set yrange [0:{}]\n", g(data.region.high_ms() * 2));
  const bool log = maybe_log_y(out, lo, hi);
  out += fmt::format(
      "set object 1 rect from graph 0, first {} to graph 1, first {} fc rgb '#cce5ff' fs solid 0.6 noborder "
      "behind\n",
      g(data.region.low_ms()), g(data.region.high_ms()));
  std::string plots = fmt::format(
      "plot {0} using 2:3 with lines dt 3 lc rgb '#888888' title 'order tried', "
      "{0} using 2:3:{4}:5 with yerrorbars pt 7 ps 0.8 lc rgb '{1}' title 'response CI per load', "
      "{0} using 2:3:(sprintf('%d', $1)) with labels offset char 1,1 tc rgb '#444444' notitle, "
      "keyentry with boxes fs solid 0.6 fc rgb '#cce5ff' title {2}{3}",
      block, kBlue, gnuplot_quote(fmt::format("peak-rate region ({})", data.region.describe())),
      saturated.empty()
          ? ""
          : fmt::format(", keyentry with points pt 9 ps 1.3 lc rgb '{}' title 'load where nothing "
                        "completed (saturated)'",
                        kRed),
      // On a log axis a CI reaching below zero is drawn down to the axis.
      log ? fmt::format("($4 > {0} ? $4 : {0})", g(lo / 1.5)) : std::string("4"));
  // A percentile region: the mean response time beside it, for comparison.
  if (data.region.metric != ResponseMetric::kMean)
    plots += fmt::format(", {} using 2:6 with points pt 6 ps 0.9 lc rgb '{}' title 'mean response time'",
                         block, kOrange);
  if (log) out += fmt::format("set yrange [{}:{}]\n", g(lo / 1.5), g(hi * 1.5));
  if (v.interval && s.peak_rate) {
    const double high = v.interval->high ? *v.interval->high : 0;
    out += v.interval->high
               ? fmt::format(
                     "set object 2 rect from first {}, graph 0 to first {}, graph 1 fc rgb '#c7e9c0' "
                     "fs solid 0.6 noborder behind\n",
                     g(v.interval->low), g(high))
               : fmt::format(
                     "set object 2 rect from first {}, graph 0 to graph 1, graph 1 fc rgb '#c7e9c0' "
                     "fs solid 0.6 noborder behind\n",
                     g(v.interval->low));
    out += fmt::format("set arrow 1 from first {0}, graph 0 to first {0}, graph 1 nohead lw 2 lc rgb '{1}'\n",
                       g(*s.peak_rate), kGreen);
    plots += fmt::format(
        ", keyentry with boxes fs solid 0.6 fc rgb '#c7e9c0' title {}, keyentry with lines lw 2 lc rgb '{}' "
        "title {}",
        gnuplot_quote(v.interval->high ? fmt::format("λ* interval [{:.0f}, {:.0f}]", v.interval->low, high)
                                       : fmt::format("λ* interval [{:.0f}, unbounded)", v.interval->low)),
        kGreen, gnuplot_quote(fmt::format("claimed λ* = {:.0f}/s", *s.peak_rate)));
  }
  return out + plots + "\n";
}

std::string latency_curve_plot(const ReportData& data, const std::string& sample_key,
                               const std::vector<const SearchView*>& searches) {
  std::vector<const LoadView*> loads;
  for (const SearchView* s : searches)
    for (const LoadView& l : s->loads)
      if (std::isfinite(l.mean_ms)) loads.push_back(&l);
  if (loads.empty()) return {};
  std::stable_sort(loads.begin(), loads.end(),
                   [](const auto* a, const auto* b) { return a->load.rate < b->load.rate; });
  const std::string block = fmt::format("$curve{}", searches.front()->row.search.id);
  std::string out = block + " << EOD\n";
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const LoadView* l : loads) {
    out += fmt::format("{} {} {} {} {}\n", g(l->load.rate), g(l->mean_ms), g(l->p50_ms), g(l->p90_ms),
                       g(l->p99_ms));
    lo = std::min({lo, l->p50_ms, l->mean_ms});
    hi = std::max(hi, l->p99_ms);
  }
  out += "EOD\n";
  out += fmt::format("set title {}\n", gnuplot_quote("load–latency: " + sample_key));
  out += "set xlabel 'offered load (requests/s)'\nset ylabel 'response time (ms)'\n";
  out +=
      "set grid\nset key below left Left reverse\nset offsets graph 0.02, graph 0.02, graph 0.05, graph "
      "0.05\n";
  maybe_log_y(out, std::max(lo, 1e-6), hi);
  out += fmt::format(
      "plot {0} using 1:5 with linespoints pt 9 ps 0.7 lc rgb '{1}' title 'p99', "
      "{0} using 1:4 with linespoints pt 5 ps 0.6 lc rgb '{2}' title 'p90', "
      "{0} using 1:3 with linespoints pt 13 ps 0.7 lc rgb '{3}' title 'p50', "
      "{0} using 1:2 with linespoints pt 7 ps 0.7 lw 2 lc rgb '{4}' title 'mean', "
      "{5} with lines dt 2 lc rgb '#555555' title {6}\n",
      block, kRed, kOrange, kGreen, kBlue, g(data.region.sat_ms),
      gnuplot_quote(fmt::format("{} target {:g} ms", metric_name(data.region.metric), data.region.sat_ms)));
  return out;
}

std::string surface_plot(const SurfaceView& v) {
  std::string out;
  const std::string title = fmt::format("surface {}: λ* over {} — {}", v.id, fmt::join(v.factors, " × "),
                                        v.model.empty() ? "no fit" : v.model);
  out += fmt::format("set title {}\nset grid\n", gnuplot_quote(title));
  const std::string points = fmt::format("$points{}", v.id);
  if (v.grid) {
    const SurfaceGrid& gr = *v.grid;
    // Each grid value fills the cell between the midpoints to its neighbours (geometric on a log
    // axis): levels need not be evenly spaced.
    auto edges = [](const std::vector<double>& a, bool log) {
      std::vector<double> e;
      auto mid = [log](double p, double q) { return log ? std::sqrt(p * q) : (p + q) / 2; };
      e.push_back(log ? a[0] * a[0] / mid(a[0], a[1]) : 2 * a[0] - mid(a[0], a[1]));
      for (std::size_t i = 0; i + 1 < a.size(); ++i) e.push_back(mid(a[i], a[i + 1]));
      const double last = a.back(), before = a[a.size() - 2];
      e.push_back(log ? last * last / mid(before, last) : 2 * last - mid(before, last));
      return e;
    };
    const std::vector<double> ex = edges(gr.x, gr.log_x), ey = edges(gr.y, gr.log_y);
    const std::string cells = fmt::format("$cells{}", v.id);
    out += cells + " << EOD\n";
    for (std::size_t i = 0; i < gr.x.size(); ++i)
      for (std::size_t j = 0; j < gr.y.size(); ++j)
        out += fmt::format("{} {} {} {} {} {} {}\n", g(gr.x[i]), g(gr.y[j]), g(ex[i]), g(ex[i + 1]), g(ey[j]),
                           g(ey[j + 1]), g(gr.z(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j))));
    out += "EOD\n";
    out += points + " << EOD\n";
    for (const auto& p : v.measured)
      out += fmt::format("{} {} {}\n", g(p.at[0]), g(p.at[1]),
                         std::isfinite(p.fitted) ? g(100 * (p.measured - p.fitted) / p.fitted) : "0");
    out += "EOD\n";
    out += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", g(ex.front()), g(ex.back()), g(ey.front()),
                       g(ey.back()));
    if (gr.log_x) out += "set logscale x\n";
    if (gr.log_y) out += "set logscale y\n";
    out += fmt::format("set xlabel {}\nset ylabel {}\n", gnuplot_quote(v.factors[0]),
                       gnuplot_quote(v.factors[1]));
    out += "set cblabel 'fitted λ* (requests/s)'\n";
    out += "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n";
    out += "set key below left Left reverse\nset tics out\nunset grid\n";
    out += fmt::format(
        "plot {0} using 1:2:3:4:5:6:7 with boxxyerror fs solid 1.0 noborder lc palette notitle, "
        "{1} using 1:2 with points pt 7 ps 1.2 lc rgb 'black' title 'measured design points', "
        "{1} using 1:2:(sprintf('%+.1f%%', $3)) with labels offset char 0,1.1 tc rgb 'black' "
        "title 'measured vs fitted λ*, %'\n",
        cells, points);
    return out;
  }
  out += points + " << EOD\n";
  for (const auto& p : v.measured)
    if (std::isfinite(p.fitted)) out += fmt::format("{} {}\n", g(p.measured), g(p.fitted));
  out += "EOD\n";
  out += "set xlabel 'measured λ* (requests/s)'\nset ylabel 'fitted λ* (requests/s)'\n";
  out += "set key below left Left reverse\n";
  out += "set size ratio -1\nset offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n";
  out += fmt::format(
      "plot {0} using 1:2 with points pt 7 lc rgb '{1}' title 'measured points', x with lines dt 2 lc rgb "
      "'#555555' title 'fitted = measured'\n",
      points, kBlue);
  return out;
}

std::string expectation_plot(const ReportData& data) {
  std::string ok = "$agree << EOD\n", bad = "$disagree << EOD\n";
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  int n = 0;
  for (const auto& r : data.expectations.searches) {
    if (!learnable(r)) continue;
    const double m = *r.search.peak_rate, e = *r.expectation->peak_rate;
    std::string line = fmt::format("{} {} {}\n", g(m), g(e), gnuplot_quote(r.search.sample.key()));
    (r.gap && std::abs(*r.gap) > kExpectationTolerance ? bad : ok) += line;
    lo = std::min({lo, m, e});
    hi = std::max({hi, m, e});
    ++n;
  }
  if (n == 0) return {};
  std::string out = ok + "EOD\n" + bad + "EOD\n";
  out += "set title 'expectation model vs measured λ*'\n";
  out += "set xlabel 'measured λ* (requests/s)'\nset ylabel 'expected λ* (requests/s)'\n";
  out += "set grid\nset key below left Left reverse\nset size ratio -1\n";
  if (hi / lo > 10) out += "set logscale xy\n";
  const double pad = (hi - lo) * 0.08 + hi * 0.02;
  out +=
      fmt::format("set xrange [{0}:{1}]\nset yrange [{0}:{1}]\n", g(std::max(lo - pad, lo / 2)), g(hi + pad));
  const double t = kExpectationTolerance;
  out += fmt::format(
      "plot x with lines lc rgb '#555555' title 'expected = measured', "
      "{0}*x with lines dt 2 lc rgb '#999999' title 'tolerance ±{2:.0f}%', {1}*x with lines dt 2 lc rgb "
      "'#999999' notitle, "
      "$agree using 1:2 with points pt 7 lc rgb '{3}' title 'within tolerance', "
      "$disagree using 1:2 with points pt 2 ps 1.6 lw 2 lc rgb '{4}' title 'mismatch (off by more than "
      "±{2:.0f}%)'\n",
      g(1 + t), g(1 - t), t * 100, kBlue, kRed);
  return out;
}

std::string cost_plot(const ReportData& data) {
  std::string out = "$cost << EOD\n0 0\n";
  for (const auto& c : data.cost) out += fmt::format("{} {}\n", g(c.elapsed_s / 60), g(c.cumulative_s / 60));
  out += "EOD\n";
  out += "set title 'benchmarking cost over time'\n";
  out +=
      "set xlabel 'wall time since the first trial (min)'\nset ylabel 'benchmarking cost, cumulative "
      "(min)'\n";
  out += "set grid\nset key below left Left reverse\n";
  out += fmt::format(
      "plot $cost using 1:2 with steps lw 2 lc rgb '{}' title 'trials'' cost (warm-up + run + overhead)'\n",
      kPurple);
  return out;
}

std::string tree_dot(const ZCart& tree) {
  const auto& nodes = tree.nodes();
  const auto& schema = tree.schema();
  std::string out =
      "digraph zcart {\n  graph [rankdir=TB, bgcolor=white, fontname=\"sans\"];\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"sans\", fontsize=11];\n"
      "  edge [fontname=\"sans\", fontsize=10];\n";
  auto esc = [](const std::string& t) {
    std::string o;
    for (char c : t) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return o;
  };
  // Only nodes reachable from the root: a retrained subtree leaves its old nodes behind.
  std::vector<int> todo{0};
  while (!todo.empty() && !nodes.empty()) {
    const int id = todo.back();
    todo.pop_back();
    const auto& nd = nodes[static_cast<std::size_t>(id)];
    if (nd.attr >= 0) {
      const auto& a = schema[static_cast<std::size_t>(nd.attr)];
      std::string test;
      if (nd.left_cats.empty()) {
        test = fmt::format("{} ≤ {:g}", a.name, nd.threshold);
      } else {
        std::vector<std::string> cats;
        for (std::size_t c = 0; c < nd.left_cats.size() && c < a.categories.size(); ++c)
          if (nd.left_cats[c] != 0) cats.push_back(a.categories[c]);
        test = fmt::format("{} ∈ {{{}}}", a.name, fmt::join(cats, ", "));
      }
      out += fmt::format("  n{} [label=\"{}\\n{} samples\", fillcolor=\"#eeeeee\"];\n", id, esc(test), nd.n);
      out += fmt::format("  n{0} -> n{1} [label=\"yes\"];\n  n{0} -> n{2} [label=\"no\"];\n", id, nd.left,
                         nd.right);
      todo.push_back(nd.right);
      todo.push_back(nd.left);
    } else {
      const double fidelity =
          nd.n > 0 ? static_cast<double>(nd.fidelity_count) / static_cast<double>(nd.n) : 0;
      const bool off = std::abs(nd.correction - 1) > kExpectationTolerance;
      std::string model = nd.cap > 0 ? fmt::format("λ* = min(expected, {:.0f}/s)", nd.cap)
                                     : fmt::format("λ* = expected × {:.3f}", nd.correction);
      out += fmt::format(
          "  n{} [label=\"leaf: {} samples\\n{}\\nmeasured/expected {:.3f}\\nfidelity {:.0f}%\", "
          "fillcolor=\"{}\"];\n",
          id, nd.n, esc(model), nd.correction, fidelity * 100, off ? "#f8d0d0" : "#d0ecd0");
    }
  }
  return out + "}\n";
}

std::string render_dot(const std::string& source) {
  ScratchDir dir;
  CommandSpec spec;
  spec.argv = {"dot", "-Tsvg", dir.write("tree.dot", source).string()};
  spec.deadline = std::chrono::seconds(30);
  CommandResult r;
  try {
    r = make_local_executor()->run(spec);
  } catch (const Error& e) {
    throw Error(std::string("report: cannot run Graphviz dot: ") + e.what());
  }
  if (r.exit_status == 127) throw Error("report: Graphviz dot is not installed (Debian package graphviz)");
  if (!r.ok() || r.out.find("<svg") == std::string::npos)
    throw Error("report: Graphviz dot failed: " + r.err.substr(0, r.err.find('\n')));
  return r.out;
}

}  // namespace wb
