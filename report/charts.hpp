#pragma once
// The gnuplot scripts of a report's plots (plot_batch.hpp draws them): what each plot shows, with
// axes, units and a legend a reader understands without the docs.
#include <string>
#include <vector>

#include "report/report_data.hpp"

namespace wb {

// A search's path toward λ*: each load's response (the region's metric) with its CI, numbered in
// the order tried, the peak-rate region, and the claimed λ* with its interval.
std::string search_path_plot(const ReportData& data, const SearchView& search);

// Load–latency curve of one sample over every load its searches tried: mean, p50, p90, p99.
// Empty when no load has a response time (nothing completed).
std::string latency_curve_plot(const ReportData& data, const std::string& sample_key,
                               const std::vector<const SearchView*>& searches);

// A surface: its fitted λ* over two numeric factors as a heatmap with the design points and each
// measured point's error against the fit; otherwise measured against fitted λ*.
std::string surface_plot(const SurfaceView& surface);

// Expected against measured λ* of every found search, the tolerance band, mismatches marked.
// Empty when no found search has an expectation.
std::string expectation_plot(const ReportData& data);

// Cumulative benchmarking cost against wall time since the first trial.
std::string cost_plot(const ReportData& data);

// The Z-CART tree as a Graphviz diagram (dot source): splits, and leaves with their size, ratio
// measured/expected and fidelity.
std::string tree_dot(const ZCart& tree);

// Runs Graphviz's dot on `source` and returns the SVG. Error when dot is missing or fails.
std::string render_dot(const std::string& source);

}  // namespace wb
