#pragma once
// I/O classification [004 "I/O Classification"]: calibration benchmarks, each isolating one
// characteristic (cache hits, sequential or random disk access), give labelled operations; per class
// and per access size a Gaussian KDE of log access time finds the clusters, clusters of the same rank
// across sizes join one line time = a + b·size, and a new operation takes the class of the line that
// explains its time best. The class shares of a trace become workload attributes (Z-CART).
// Pure computation: no clock, no file (the CLI reads traces with models/io_trace.hpp); a calibrated
// IoClassifier is immutable, so const calls are safe from several threads.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/io_trace.hpp"
#include "models/kde.hpp"

namespace wb {

// One calibration benchmark: operations that all show the characteristic `name`.
struct CalibrationSet {
  std::string name;
  std::vector<IoOp> ops;
};

// One cluster of a class: its line and the spread of log residuals around it.
struct IoCluster {
  double intercept_s = 0;       // a ≥ 0
  double seconds_per_byte = 0;  // b ≥ 0
  double log_sd = 0;            // root mean square of ln(time / predicted) over its ops
  double share = 0;             // its ops / the class's ops
  std::uint64_t ops = 0;
  std::uint64_t min_size = 0, max_size = 0;  // access sizes it was fitted on

  double predict_s(std::uint64_t size) const {
    return intercept_s + seconds_per_byte * static_cast<double>(size);
  }
};

struct IoClass {
  std::string name;
  std::vector<IoCluster> clusters;  // fastest first at the smallest size calibrated
};

struct IoClassifierOptions {
  KdeOptions kde;
  double min_cluster_share = 0.02;    // a KDE cluster with fewer of its size's ops joins its neighbour
  std::size_t min_ops_per_size = 20;  // fewer ops at one size: no KDE, one cluster
  double min_log_sd = 0.02;           // floor of a cluster's spread (2%: timer and model resolution)
};

// The class an operation was given, with the cluster that won and how far its time is from it.
struct IoLabel {
  std::size_t class_index = 0;
  std::size_t cluster_index = 0;
  double log_ratio = 0;  // ln(time / the cluster's predicted time)
};

class IoClassifier {
 public:
  // Calibrates from labelled benchmarks. Throws InputError when there is no set, a set has no name, no
  // operation, or shares a name with another.
  static IoClassifier calibrate(std::span<const CalibrationSet> sets,
                                const IoClassifierOptions& options = {});

  // Reads what to_json() wrote. Throws InputError naming the first missing or invalid field.
  static IoClassifier from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;

  const std::vector<IoClass>& classes() const { return classes_; }

  // Maximum likelihood over every class's clusters: ln t ~ N(ln predict(size), log_sd²), weighted by
  // the cluster's share within its class (classes equally likely a priori). Durations below 1 ns count
  // as 1 ns (no trace resolves less).
  IoLabel classify(const IoOp& op) const;
  std::vector<IoLabel> classify(std::span<const IoOp> ops) const;

  // Each class's share of `ops` (every class named, 0 when none; an empty trace: all 0).
  std::map<std::string, double> shares(std::span<const IoOp> ops) const;

 private:
  std::vector<IoClass> classes_;
};

// The classifier `workbench classify calibrate` wrote to `path`. Throws InputError naming the path
// if it cannot be opened, is not JSON, or from_json refuses it.
IoClassifier read_classifier(const std::string& path);

// The class shares as workload attributes for Z-CART, named like read_fraction: "<class>_fraction".
std::map<std::string, double> io_class_attributes(const IoClassifier& classifier, std::span<const IoOp> ops);

}  // namespace wb
