#include "report/plot_batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/archive/iterators/base64_from_binary.hpp>
#include <boost/archive/iterators/transform_width.hpp>
#include <chrono>
#include <regex>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "report/scratch_dir.hpp"

namespace wb {

namespace {

// gnuplot's complaint: the last line of its stderr that is not a warning (it quotes the offending
// script line above it), and the script line it names.
std::pair<std::string, int> complaint(const std::string& err) {
  std::istringstream in(err);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t^") != std::string::npos && line.find("warning:") == std::string::npos)
      last = line;
  static const std::regex kAt(R"(line (\d+):\s*(.*))");
  std::smatch m;
  if (std::regex_search(last, m, kAt)) return {m[2].str(), std::stoi(m[1].str())};
  return {last.empty() ? std::string("no message") : last, 0};
}

}  // namespace

std::size_t PlotBatch::add(std::string script, std::string name) {
  scripts_.push_back(std::move(script));
  names_.push_back(std::move(name));
  return scripts_.size() - 1;
}

std::vector<std::string> PlotBatch::render() const {
  if (scripts_.empty()) return {};
  ScratchDir dir;
  std::string script = fmt::format(
      "set terminal svg size {},{} font 'sans,11' background rgb 'white'\n"
      "set termoption noenhanced\n",
      width_, height_);
  std::vector<int> first_line;  // of each plot in the script, to name the plot gnuplot fails on
  for (std::size_t i = 0; i < scripts_.size(); ++i) {
    first_line.push_back(static_cast<int>(std::count(script.begin(), script.end(), '\n')) + 1);
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
  if (r.timed_out) throw Error("report: gnuplot did not finish in 60 s");
  if (!r.ok()) {
    const auto [message, at] = complaint(r.err);
    const auto plot = std::upper_bound(first_line.begin(), first_line.end(), at) - first_line.begin() - 1;
    throw Error(fmt::format("report: gnuplot failed on {}: {}",
                            plot >= 0 ? names_[static_cast<std::size_t>(plot)] : std::string("its set-up"),
                            message));
  }
  std::vector<std::string> svgs;
  for (std::size_t i = 0; i < scripts_.size(); ++i) {
    std::string svg = dir.read(fmt::format("{}.svg", i));
    if (svg.find("<svg") == std::string::npos)
      throw Error(fmt::format("report: gnuplot drew nothing for {}", names_[i]));
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
