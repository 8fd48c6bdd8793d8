#pragma once
// `workbench report --html`: one self-contained HTML file (no script, nothing fetched when it is
// opened) with the plots of report_data.hpp drawn by gnuplot and Graphviz and embedded as images,
// and the tables behind them.
#include <string>

#include "report/report_data.hpp"

namespace wb {

struct HtmlReport {
  std::string html;
  int plots = 0;  // images embedded
};

// Error when gnuplot or Graphviz is missing or fails.
HtmlReport render_html(const ReportData& data);

// Text for HTML element content and attribute values.
std::string html_escape(const std::string& text);

}  // namespace wb
