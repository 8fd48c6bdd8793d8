#pragma once
// What `workbench report --html` draws and `report --json` carries, read from a testbed's store:
// each search's loads and trials and its λ* interval, each finished surface refitted over a grid,
// the expectation against every measured λ*, the Z-CART tree, the probes, and the benchmarking cost
// over time. Writes nothing but what `report` always did (dead controllers' leases swept) and the
// expectation cache a surface's refit may fill (surface_fit.hpp expectation_anchor).
#include <Eigen/Dense>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "experiment/expectation_record.hpp"
#include "models/zcart.hpp"
#include "store/store.hpp"

namespace wb {

// One judged load of a search, with the statistics its trials measured.
struct LoadView {
  store::StoredLoad load;
  double mean_ms = 0;    // mean of its trials' mean response times
  double metric_ms = 0;  // mean of its trials' values of the region's metric (the mean or a percentile)
  double p50_ms = 0, p90_ms = 0, p99_ms = 0;  // means over its trials
  double achieved_rate = 0;                   // mean over its trials
};

struct SearchView {
  MeasuredVsExpected row;  // the search, its stored expectation and the gap
  std::optional<store::SearchStore::PeakInterval> interval;
  std::vector<LoadView> loads;  // in the order they were tried
  std::vector<store::StoredTrial> trials;
};

// λ* predicted by a surface on a rectangular grid over its two factors (axis values): at their
// levels when the surface is anchored to the expectation model (which answers at levels only),
// else at evenly spaced values (on a log axis for a log-coded factor).
struct SurfaceGrid {
  std::vector<double> x, y;           // the first factor's axis values, the second's
  bool log_x = false, log_y = false;  // coded on a log scale: drawn on a log axis
  Eigen::MatrixXd z;                  // z(i, j): at x[i], y[j]
};

struct SurfaceView {
  std::int64_t id = 0;
  std::string status;
  std::vector<std::string> factors;
  std::vector<Sample> design;  // every planned sample, in tour order
  std::string model;           // the fitted class; empty when nothing could be fitted
  std::string fit_error;       // why not, then
  std::optional<double> cv_mape, r2;
  struct Point {
    Sample sample;
    std::int64_t search_id = 0;
    std::vector<double> at;  // axis values of the surface's factors
    double measured = 0;
    double fitted = 0;  // NaN without a fit
  };
  std::vector<Point> measured;
  std::optional<SurfaceGrid> grid;  // two numeric factors with a fit only
};

// Benchmarking seconds spent so far, after each trial in the order they were stored.
struct CostPoint {
  std::string at;        // the trial's created_at (ISO 8601 UTC)
  double elapsed_s = 0;  // seconds since the first trial
  double cumulative_s = 0;
  std::int64_t search_id = 0;
};

struct ReportData {
  std::string testbed, store_path;
  PeakRegion region;
  std::vector<SearchView> searches;
  std::vector<SurfaceView> surfaces;
  TestbedReport expectations;  // every search with its expectation, the fidelity, mismatches
  std::optional<ZCart> tree;   // the testbed's Z-CART tree, when one is stored
  std::vector<store::ProbeStore::ProbeRow> probes;  // all, in run order
  std::vector<CostPoint> cost;
};

// Which part of the store to read: everything, or one search, or one surface and its searches.
struct ReportScope {
  std::optional<std::int64_t> search, surface;
  // false: each surface carries its id, status, factors and design only, unfitted (refitting a
  // surface anchored on the expectation solves the model at every measured sample: seconds).
  bool fit_surfaces = true;
};

// InputError when there is no store at `store_path`, or for a --search or --surface id the store
// does not hold for this testbed.
ReportData read_report(const Config& config, const std::string& store_path, const ReportScope& scope,
                       std::ostream& log);

// Grid points per axis of a surface's heatmap.
inline constexpr int kSurfaceGridSteps = 41;

}  // namespace wb
