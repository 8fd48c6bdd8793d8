// `workbench classify`: labels each operation of an I/O trace with the calibration benchmark it looks
// like, and `workbench classify calibrate` builds that classifier from labelled traces [004 "I/O
// Classification"; models/io_classify.hpp].
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/output_file.hpp"
#include "core/error.hpp"
#include "models/io_classify.hpp"
#include "models/io_trace.hpp"

namespace wb {

namespace {

struct ClassifyOptions {
  std::string calibration;           // classify: the classifier's JSON
  std::string trace;                 // classify: the trace to label
  std::vector<std::string> classes;  // calibrate: NAME=TRACE.csv
  std::string out;                   // calibrate: where the classifier goes
};

int run_classify(const CommonOptions& common, const ClassifyOptions& o) {
  if (o.calibration.empty() || o.trace.empty())
    throw InputError("classify needs --calibration FILE.json and a TRACE.csv (or: classify calibrate)");
  IoClassifier classifier = read_classifier(o.calibration);
  std::vector<IoOp> ops = read_io_trace_file(o.trace);
  std::vector<IoLabel> labels = classifier.classify(ops);
  const std::vector<IoClass>& classes = classifier.classes();
  std::vector<std::size_t> counts(classes.size(), 0);
  for (const IoLabel& l : labels) ++counts[l.class_index];
  auto share = [&](std::size_t i) {
    return ops.empty() ? 0.0 : static_cast<double>(counts[i]) / static_cast<double>(ops.size());
  };
  if (common.json) {
    nlohmann::json per_class = nlohmann::json::array(), names = nlohmann::json::array();
    for (std::size_t i = 0; i < classes.size(); ++i)
      per_class.push_back({{"name", classes[i].name}, {"ops", counts[i]}, {"share", share(i)}});
    for (const IoLabel& l : labels) names.push_back(classes[l.class_index].name);
    std::cout << nlohmann::json{{"trace", o.trace},
                                {"calibration", o.calibration},
                                {"operations", ops.size()},
                                {"classes", per_class},
                                {"labels", names}}
                     .dump()
              << "\n";
    return 0;
  }
  fmt::print("{} operations of {} classified by {}\n", ops.size(), o.trace, o.calibration);
  fmt::print("  {:<20} {:>10} {:>8}\n", "class", "ops", "share");
  for (std::size_t i = 0; i < classes.size(); ++i)
    fmt::print("  {:<20} {:>10} {:>7.1f}%\n", classes[i].name, counts[i], 100 * share(i));
  return 0;
}

CalibrationSet read_class(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw InputError(fmt::format("--class {}: expected NAME=TRACE.csv", spec));
  return {spec.substr(0, eq), read_io_trace_file(spec.substr(eq + 1))};
}

int run_calibrate(const CommonOptions& common, const ClassifyOptions& o) {
  check_output_path("--out", o.out);
  std::vector<CalibrationSet> sets;
  for (const std::string& spec : o.classes) sets.push_back(read_class(spec));
  IoClassifier classifier = IoClassifier::calibrate(sets);
  nlohmann::json j = classifier.to_json();
  write_atomically(o.out, j.dump(2) + "\n");
  if (common.json) {
    std::cout << nlohmann::json{{"out", o.out}, {"classifier", j}}.dump() << "\n";
    return 0;
  }
  fmt::print("classifier of {} classes written to {}\n", sets.size(), o.out);
  for (const IoClass& c : classifier.classes()) {
    fmt::print("  {}\n", c.name);
    for (const IoCluster& k : c.clusters)
      fmt::print("    {:.1f} us + {:.4f} us/KiB   spread x{:.3f}   {:.1f}% of {} ops, sizes {}..{} B\n",
                 k.intercept_s * 1e6, k.seconds_per_byte * 1024 * 1e6, std::exp(k.log_sd), 100 * k.share,
                 k.ops, k.min_size, k.max_size);
  }
  return 0;
}

}  // namespace

Command classify_command() {
  return Command{
      "classify",
      "Label each operation of an I/O trace (CSV: op,file,offset,size,start_s,duration_s) with the "
      "calibration benchmark whose access-time model explains it best, and print each class's share. "
      "Build the classifier first from traces of benchmarks that isolate one behaviour each.\n\n"
      "Example:\n"
      "  workbench classify calibrate --class cache=hits.csv --class disk=uncached.csv --out io.json\n"
      "  workbench classify --calibration io.json app.csv",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<ClassifyOptions>();
        auto calibrating = std::make_shared<bool>(false);
        app.add_option("--calibration", o->calibration, "the classifier (JSON from `classify calibrate`)");
        app.add_option("trace", o->trace, "the I/O trace to label (CSV)");
        app.add_flag("--json", common.json,
                     "machine-readable output: operations, each class's ops and share, and every "
                     "operation's class in trace order");
        CLI::App* cal = app.add_subcommand(
            "calibrate",
            "Build a classifier from labelled traces: per class and access size, clusters of log access time "
            "(Gaussian KDE), and per cluster a line time = a + b·size.\n\nExample:\n"
            "  workbench classify calibrate --class cache=hits.csv --class disk=uncached.csv --out io.json");
        cal->add_option("--class", o->classes,
                        "NAME=TRACE.csv: a trace whose operations all show NAME (repeat)")
            ->required();
        cal->add_option("--out,-o", o->out, "where to write the classifier (JSON)")->required();
        cal->add_flag("--json", common.json, "machine-readable output: the classifier written");
        cal->callback([calibrating] { *calibrating = true; });
        return [&common, o, calibrating] {
          return *calibrating ? run_calibrate(common, *o) : run_classify(common, *o);
        };
      }};
}

}  // namespace wb
