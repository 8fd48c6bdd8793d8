// `workbench peak`: one peak search [003 Alg. 2] for one sample, every trial stored as it ends.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli.hpp"
#include "controller/expectation_record.hpp"
#include "controller/interrupt.hpp"
#include "controller/peak_report.hpp"
#include "controller/search_recorder.hpp"
#include "controller/testbed.hpp"
#include "core/error.hpp"
#include "policies/runlength.hpp"
#include "policies/search.hpp"
#include "policies/seeding.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

struct PeakOptions {
  std::string set;
  std::string target;
  std::string policy;
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool verbose = false;
  bool seeding = false;
  std::string runlength;
};

// What earlier found searches of this testbed say [003 §3.7]: their peaks (for the seed) and how
// much their trials varied (for the adaptive runlength), newest 200 searches.
struct TestbedHistory {
  std::vector<PastPeak> peaks;
  std::vector<VarianceObservation> variances;
};

TestbedHistory read_history(store::Store& store, const std::string& testbed) {
  TestbedHistory h;
  store::Statement q = store.db().prepare(
      "SELECT id FROM searches WHERE testbed = ?1 AND status = 'found' AND peak_rate IS NOT NULL "
      "ORDER BY id DESC LIMIT 200");
  q.bind(1, testbed);
  std::vector<std::int64_t> ids;
  while (q.step()) ids.push_back(q.column_int(0));
  for (std::int64_t id : ids) {
    std::optional<store::SearchRecord> rec = store.search(id);
    if (!rec || !rec->peak_rate) continue;
    h.peaks.push_back(PastPeak{rec->sample, *rec->peak_rate});
    std::vector<TestLoad> loads;
    for (const auto& st : store.trials(id)) {
      if (loads.empty() || static_cast<int>(loads.size()) - 1 != st.load_index) {
        loads.emplace_back();
        loads.back().rate = st.trial.offered_rate;
      }
      const TrialResult& t = st.trial;
      double sent = static_cast<double>(t.sent);
      loads.back().saturated = loads.back().saturated || t.sent == 0 ||
                               static_cast<double>(t.completed) < 0.99 * sent ||
                               static_cast<double>(t.errors) > 0.01 * sent;
      loads.back().trials.push_back(t);
    }
    for (const auto& v : variance_observations(loads)) h.variances.push_back(v);
  }
  return h;
}

int run_peak(const CommonOptions& common, const PeakOptions& o) {
  // Everything the user gave is validated before the store is opened: bad input changes nothing.
  Config config = Config::load(common.config);
  Sample sample = config.sample(o.set);
  SearchOptions options{config.peak(), o.target.empty() ? config.peak().target : Target::parse(o.target)};
  std::string policy = o.policy.empty() ? config.peak().policy : o.policy;
  std::unique_ptr<LoadPicker> picker = make_picker(policy, config.peak(), config.peak().start_rate);
  std::string runlength_name = o.runlength.empty() ? config.peak().runlength : o.runlength;
  make_runlength_policy(runlength_name);  // validates the name before the store is opened
  std::uint64_t seed = o.seed_given ? o.seed : default_seed(config);
  std::optional<TestbedConfig> real = validate_testbed(config);
  std::unique_ptr<TrialRunner> testbed = make_trial_runner(config, real, seed, o.verbose);

  store::Store store(common.store.empty() ? config.store_path() : common.store);
  TestbedHistory history;
  if (o.seeding || runlength_name == "adaptive") history = read_history(store, config.name());
  double start_rate = config.peak().start_rate;
  if (o.seeding) {
    if (auto s = choose_seed(sample, history.peaks, config.factors())) {
      start_rate = s->rate;
      picker = make_picker(policy, config.peak(), start_rate, true);
      if (o.verbose) {
        std::cerr << fmt::format("seed {:.1f}/s from {} earlier search(es) of the nearest sample\n", s->rate,
                                 s->from.size());
      }
    }
  }
  std::unique_ptr<RunlengthPolicy> runlength = make_runlength_policy(runlength_name, history.variances);
  store::SearchRecord rec;
  rec.testbed = config.name();
  rec.sample = sample;
  rec.confidence = options.target.confidence;
  rec.accuracy = options.target.accuracy;
  rec.policy = policy;
  rec.seed = static_cast<std::int64_t>(seed);
  rec.options_json = nlohmann::json{{"r_sat_ms", options.peak.r_sat_ms},
                                    {"width", options.peak.width},
                                    {"start_rate", start_rate},
                                    {"seeding", o.seeding},
                                    {"runlength", runlength_name},
                                    {"runlength_s", options.peak.runlength_s},
                                    {"min_trials", options.peak.min_trials},
                                    {"max_trials", options.peak.max_trials},
                                    {"max_loads", options.peak.max_loads},
                                    {"budget_s", options.peak.budget_s}}
                         .dump();
  std::int64_t id = store.begin_search(rec);

  StoringObserver observer(store, id, o.verbose);
  InterruptibleRunner runner(*testbed);
  SearchResult result;
  try {
    result = run_search(sample, options, *picker, runner, &observer, runlength.get());
  } catch (const Interrupted&) {
    result.status = SearchStatus::kFailed;
    result.message = "interrupted";
    store.finish_search(id, result);
    throw;
  }
  store.finish_search(id, result);
  record_expectation(store, config, sample, id, std::cerr);  // measured vs expected: `workbench report`

  PeakReport report{id, &config, sample, options.target, policy, seed, &result};
  if (common.json)
    std::cout << peak_json(report).dump(2) << "\n";
  else
    print_peak(std::cout, report);
  return to_int(result.status == SearchStatus::kFound ? ExitStatus::kOk : ExitStatus::kNegative);
}

}  // namespace

Command peak_command() {
  return Command{
      "peak",
      "Find the peak rate λ*: the highest offered load before the mean response time leaves the peak-rate "
      "region [R_sat(1-s), R_sat(1+s)], with the target confidence and accuracy (Algorithm 2 of the "
      "workbench paper). Exit 0 when found, 1 when not (status not-found, budget or failed).",
      [](CLI::App& app, CommonOptions& common) -> std::function<int()> {
        auto o = std::make_shared<PeakOptions>();
        add_common_options(app, common);
        app.add_option("--set,-s", o->set,
                       "factor levels of the sample, e.g. disks=2,threads=16 (others: their default)");
        app.add_option("--target,-t", o->target,
                       "CONFIDENCE/ACCURACY in percent, e.g. 95/90 (default: [peak] target)");
        std::string policies = "load picker (default: [peak] policy):";
        for (const auto& name : picker_names()) policies += "\n  " + name + ": " + picker_summary(name);
        app.add_option("--policy,-p", o->policy, policies);
        app.add_flag("--seeding", o->seeding,
                     "start at the λ* of the nearest sample already measured on this testbed (in the store) "
                     "instead of [peak] start_rate");
        app.add_option("--runlength", o->runlength,
                       "fixed ([peak] runlength_s) or adaptive (r per load from the variance seen so far) "
                       "(default: [peak] runlength)");
        app.add_option("--seed", o->seed, "random seed of the simulated testbed (default: [sim] seed)")
            ->each([o](const std::string&) { o->seed_given = true; });
        app.add_flag("--verbose,-v", o->verbose, "log every stored trial to stderr");
        return [&common, o] { return run_peak(common, *o); };
      }};
}

}  // namespace wb
