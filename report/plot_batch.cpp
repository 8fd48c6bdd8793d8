#include "report/plot_batch.hpp"

#include <fmt/format.h>

#include <boost/archive/iterators/base64_from_binary.hpp>
#include <boost/archive/iterators/transform_width.hpp>
#include <chrono>

#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "report/scratch_dir.hpp"

namespace wb {

namespace {

// gnuplot's complaint (it quotes the offending line over several) as one line.
std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\t') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  return out.empty() ? std::string("no message") : out;
}

}  // namespace

std::size_t PlotBatch::add(std::string script) {
  scripts_.push_back(std::move(script));
  return scripts_.size() - 1;
}

std::vector<std::string> PlotBatch::render() const {
  if (scripts_.empty()) return {};
  ScratchDir dir;
  std::string script = fmt::format(
      "set terminal svg size {},{} font 'sans,11' background rgb 'white'\n"
      "set termoption noenhanced\n",
      width_, height_);
  for (std::size_t i = 0; i < scripts_.size(); ++i) {
    script += fmt::format("reset\nset output {}\n",
                          gnuplot_quote((dir.path() / fmt::format("{}.svg", i)).string()));
    script += scripts_[i];
    script += "\nunset output\n";
  }
  const auto script_path = dir.write("report.gp", script);
  auto executor = make_local_executor();
  CommandSpec spec;
  spec.argv = {"gnuplot", script_path.string()};
  spec.deadline = std::chrono::seconds(60);
  CommandResult r;
  try {
    r = executor->run(spec);
  } catch (const Error& e) {
    throw Error(std::string("report: cannot run gnuplot (install gnuplot-nox): ") + e.what());
  }
  if (r.exit_status == 127) throw Error("report: gnuplot is not installed (Debian package gnuplot-nox)");
  if (!r.ok())
    throw Error(fmt::format("report: gnuplot failed{}: {}", r.timed_out ? " (timed out after 60 s)" : "",
                            one_line(r.err)));
  std::vector<std::string> svgs;
  for (std::size_t i = 0; i < scripts_.size(); ++i) {
    std::string svg = dir.read(fmt::format("{}.svg", i));
    if (svg.find("<svg") == std::string::npos)
      throw Error(fmt::format("report: gnuplot drew nothing for plot {}: {}", i, one_line(r.err)));
    svgs.push_back(std::move(svg));
  }
  return svgs;
}

std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "''";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

std::string svg_data_uri(const std::string& svg) {
  using namespace boost::archive::iterators;
  using Base64 = base64_from_binary<transform_width<std::string::const_iterator, 6, 8>>;
  std::string encoded(Base64(svg.begin()), Base64(svg.end()));
  encoded.append((3 - svg.size() % 3) % 3, '=');
  return "data:image/svg+xml;base64," + encoded;
}

}  // namespace wb
