#pragma once
// Plots drawn by gnuplot's SVG terminal (Debian's gnuplot-nox), all of a report's plots in one
// gnuplot process: one start per report, not per plot.
#include <string>
#include <vector>

namespace wb {

class PlotBatch {
 public:
  PlotBatch(int width, int height) : width_(width), height_(height) {}

  // Adds a plot: gnuplot commands that set it up and end in one plot or splot command. Settings do
  // not carry over to the next plot; datablocks do, so each plot names its own. `name` says which
  // plot an error is about. Returns its index.
  std::size_t add(std::string script, std::string name);
  std::size_t size() const { return scripts_.size(); }

  // Runs gnuplot once and returns each plot's SVG document, in the order added. Error naming
  // gnuplot's first complaint when it is missing, fails or draws nothing for a plot.
  std::vector<std::string> render() const;

 private:
  int width_, height_;
  std::vector<std::string> scripts_, names_;
};

// A text as a gnuplot string literal (single-quoted: only the quote itself needs escaping).
std::string gnuplot_quote(const std::string& text);

// An SVG document (or any text) as a data: URI for an <img>: the report stays one self-contained
// file, and each plot's ids stay inside its own document.
std::string svg_data_uri(const std::string& svg);

}  // namespace wb
