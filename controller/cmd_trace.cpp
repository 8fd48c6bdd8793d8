// `workbench trace`: the I/O traces stored with trials ([workload] trace = true), listed or written
// out as CSV for [model.storage] and `workbench classify` (docs/storage.md).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/output_file.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

struct TraceOptions {
  std::int64_t trial = 0;  // 0: list
  std::string out;         // "": stdout
};

int run_trace(const CommonOptions& common, const TraceOptions& o) {
  const Config config = Config::load(common.config);
  const std::string path = common.store_or(config.store_path());
  // Reading must not create a store where there was none.
  if (!std::filesystem::exists(path)) throw InputError(fmt::format("no store at {}", path));
  if (!o.out.empty()) check_output_path("--out", o.out);
  store::Store store(path);
  if (o.trial == 0) {
    const auto traces = store.traces(config.name());
    if (common.json) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& t : traces)
        rows.push_back({{"trial", t.trial_id},
                        {"search", t.search_id},
                        {"sample", t.sample},
                        {"rate", t.rate},
                        {"ops", t.ops},
                        {"created_at", t.created_at}});
      std::cout << rows.dump() << "\n";
      return 0;
    }
    if (traces.empty()) {
      fmt::print("no trial of {} in {} has a trace ([workload] trace = true records them)\n", config.name(),
                 path);
      return 0;
    }
    fmt::print("{:>7} {:>7} {:>10} {:>9}  {:<24} {}\n", "trial", "search", "rate", "ops", "created",
               "sample");
    for (const auto& t : traces)
      fmt::print("{:>7} {:>7} {:>10.1f} {:>9}  {:<24} {}\n", t.trial_id, t.search_id, t.rate, t.ops,
                 t.created_at, t.sample);
    return 0;
  }
  const auto t = store.trace(config.name(), o.trial);
  if (!t)
    throw InputError(
        fmt::format("--trial {}: no trace of a trial of {} in {}", o.trial, config.name(), path));
  if (o.out.empty()) {
    std::cout << t->csv;
    return 0;
  }
  write_atomically(o.out, t->csv);
  if (common.json) {
    std::cout << nlohmann::json{{"trial", t->trial_id}, {"ops", t->ops}, {"out", o.out}}.dump() << "\n";
  } else {
    fmt::print("trace of trial {} ({} operations at {:.1f}/s, {}) written to {}\n", t->trial_id, t->ops,
               t->rate, t->sample, o.out);
  }
  return 0;
}

}  // namespace

Command trace_command() {
  return Command{
      "trace",
      "List the I/O traces stored with trials, or write one out as CSV (op,file,offset,size,start_s,"
      "duration_s). A testbed records them when its config says [workload] trace = true (wbload --trace: "
      "every operation counted in the trial, its file, offset, size, intended start and latency). A "
      "trace is what [model.storage] replays through a cache to answer `whatif --set cache_mb=...`, "
      "and what `workbench classify` labels.\n\n"
      "Example:\n"
      "  workbench trace --config configs/storage.toml\n"
      "  workbench trace --config configs/storage.toml --trial 42 --out web.csv",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<TraceOptions>();
        add_common_options(app, common);
        app.add_option("--trial", o->trial, "the trial whose trace to write (ids as the listing shows)")
            ->check(CLI::PositiveNumber);
        app.add_option("--out,-o", o->out, "write the CSV here (default: standard output)");
        return [&common, o] { return run_trace(common, *o); };
      }};
}

}  // namespace wb
