#include "experiment/probe_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>

#include "core/error.hpp"
#include "experiment/expectation.hpp"
#include "experiment/expectation_zcart.hpp"

namespace wb {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

MeasuredPeak measured_peak(double value, std::optional<store::Store::PeakInterval> interval) {
  // A search stored before the interval existed has only its point value: the tolerance alone
  // decides for it.
  if (!interval) return MeasuredPeak{value, value, value};
  return MeasuredPeak{value, interval->low, interval->high.value_or(std::numeric_limits<double>::infinity())};
}

std::string ranking_text(const std::vector<RankedAttribute>& ranked) {
  std::string out;
  for (const auto& r : ranked)
    out += fmt::format("{}{} ({:.2f} bits)", out.empty() ? "" : ", ", r.name, r.gain);
  return out;
}

void set_center(store::Store::MismatchRow& m, const CenterCheck& c) {
  if (!c.worst) return;
  m.center = c.worst->center;
  m.center_json = deviations_json(c.centers).dump();
}

std::string center_text(const CenterCheck& c) {
  return c.worst ? "; center " + center_deviation_text(*c.worst) : std::string();
}

// Ranks the attributes and, unless the mismatch came from a probe or this sample had a mismatch
// before, plans its probes; writes the mismatch and the probes. Returns the ranking and whether
// probes were planned.
struct Recorded {
  std::vector<RankedAttribute> ranked;
  bool planned = false;
  std::int64_t id = 0;
  std::vector<std::int64_t> probe_ids;
};
Recorded record_mismatch(store::Store& store, const Config& config, const ProbeConfig& probing,
                         store::Store::MismatchRow m, std::optional<std::int64_t> from_probe,
                         const ZCartAttributes* shared) {
  Recorded r;
  std::vector<MeasuredVsExpected> rows = measured_vs_expected(store, config.name());
  std::optional<ZCartAttributes> own;
  const ZCartAttributes& attributes = shared != nullptr ? *shared : own.emplace(config);
  r.ranked = rank_attributes(attributes.schema(),
                             classified_observations(store, config, rows, probing.tolerance, &attributes));
  nlohmann::json attrs = nlohmann::json::array();
  for (const auto& a : r.ranked) attrs.push_back({{"name", a.name}, {"gain", a.gain}});
  m.attributes_json = attrs.dump();

  std::vector<store::Store::ProbeRow> probes;
  r.planned = !from_probe && !store.has_mismatch_at(config.name(), m.sample);
  if (r.planned) {
    std::set<std::string> taken;
    for (const auto& row : rows) taken.insert(row.search.sample.key());
    for (const auto& p : store.probes(config.name(), true)) {
      if (p.status != store::ProbeState::kCancelled) taken.insert(p.sample.key());
    }
    const std::int64_t not_before = probe_not_before(probing, unix_now());
    for (const PlannedProbe& p : plan_probes(m.sample, probe_ranking(attributes, r.ranked), config.factors(),
                                             taken, probing.top_attributes, probing.radius)) {
      store::Store::ProbeRow row;
      row.testbed = config.name();
      row.sample = p.sample;
      row.attribute = p.attribute;
      row.priority = p.priority;
      row.not_before = not_before;
      probes.push_back(row);
    }
  }
  std::tie(r.id, r.probe_ids) = store.add_mismatch(m, probes);
  return r;
}

std::string probes_text(const Recorded& r, std::optional<std::int64_t> from_probe) {
  if (from_probe) return fmt::format("found by probe {}, no new probes", *from_probe);
  if (!r.planned) return "probes were planned at this sample before";
  return fmt::format("{} probe(s) planned", r.probe_ids.size());
}

}  // namespace

nlohmann::json deviations_json(const std::vector<CenterDeviation>& centers) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : centers) {
    out.push_back({{"center", d.center},
                   {"stages", d.stages},
                   {"predicted_ms", d.predicted_ms},
                   {"measured_ms", d.measured_ms},
                   {"deviation", std::isfinite(d.deviation) ? nlohmann::json(d.deviation) : nlohmann::json()},
                   {"share", d.share}});
  }
  return out;
}

std::string mismatch_figures_text(const store::Store::MismatchRow& m) {
  if (m.metric == store::MismatchMetric::kMeanMs) {
    return fmt::format("R {:.3g} ms measured, {:.3g} ms expected (ratio {:.2f})", m.measured, m.expected,
                       m.ratio);
  }
  return fmt::format("λ* {:.1f}/s measured, {:.1f}/s expected (ratio {:.2f})", m.measured, m.expected,
                     m.ratio);
}

nlohmann::json mismatch_center_json(const store::Store::MismatchRow& m) {
  if (!m.center || m.center_json.empty()) return nullptr;
  try {
    for (const auto& c : nlohmann::json::parse(m.center_json)) {
      if (c.value("center", "") == *m.center) return c;
    }
  } catch (const nlohmann::json::exception&) {  // written by this code; unreadable means no figures
  }
  return nullptr;
}

std::string mismatch_center_text(const store::Store::MismatchRow& m) {
  if (!m.center) return "";
  nlohmann::json c = mismatch_center_json(m);
  if (c.is_null()) return *m.center;
  try {
    CenterDeviation d;
    d.center = *m.center;
    d.predicted_ms = c.at("predicted_ms").get<double>();
    d.measured_ms = c.at("measured_ms").get<double>();
    d.deviation = c.at("deviation").is_null() ? std::numeric_limits<double>::infinity()
                                              : c.at("deviation").get<double>();
    return center_deviation_text(d);
  } catch (const nlohmann::json::exception&) {
    return *m.center;
  }
}

CenterCheck check_centers(store::Store& store, const Config& config, const Sample& sample, double rate,
                          const std::vector<TrialResult>& trials) {
  CenterCheck out;
  // The mean over trials of each stage every measured trial reports.
  std::map<std::string, double> sum;
  std::map<std::string, int> seen;
  int measured = 0;
  for (const auto& t : trials) {
    if (t.stage_ms.empty()) continue;
    ++measured;
    for (const auto& [stage, ms] : t.stage_ms) {
      sum[stage] += ms;
      ++seen[stage];
    }
  }
  if (measured == 0 || !config.model() || !(rate > 0)) return out;
  std::map<std::string, double> mean;
  for (const auto& [stage, total] : sum) {
    if (seen[stage] == measured) mean[stage] = total / measured;
  }
  try {
    PeakExpectation e = expect_peak(config, sample, load_calibrations(store, config), rate);
    out.centers = center_deviations(e.at.centers, mean);
    out.worst = deviating_center(out.centers);
  } catch (const InputError&) {
    return CenterCheck{};  // no expectation for this sample: nothing to compare the stages with
  }
  return out;
}

std::vector<ClassifiedObservation> classified_observations(store::Store& store, const Config& config,
                                                           const std::vector<MeasuredVsExpected>& rows,
                                                           double tolerance,
                                                           const ZCartAttributes* attributes) {
  std::optional<ZCartAttributes> own;
  if (attributes == nullptr) attributes = &own.emplace(config);
  std::vector<ClassifiedObservation> out;
  for (const auto& r : rows) {
    if (!learnable(r)) continue;
    auto values = attributes->encode(r.search.sample);
    if (!values) continue;
    MeasuredPeak m = measured_peak(*r.search.peak_rate, store.peak_interval(r.search.id));
    out.push_back(ClassifiedObservation{*values, is_mismatch(*r.expectation->peak_rate, m, tolerance)});
  }
  return out;
}

SearchCheck check_search(store::Store& store, const Config& config, const ProbeConfig& probing,
                         const Sample& sample, std::int64_t search_id, const SearchResult& result,
                         std::optional<std::int64_t> from_probe, std::ostream& log,
                         const ZCartAttributes* attributes) {
  SearchCheck check;
  check.expectation_stored = record_expectation(store, config, sample, search_id, log);
  if (!check.expectation_stored || !has_peak(result.status)) return check;
  std::optional<store::Store::ExpectationRow> e = store.expectation(search_id);
  if (!e || !e->peak_rate) return check;
  const double expected = *e->peak_rate;
  MeasuredPeak measured{result.peak_rate, result.peak_low, result.peak_high};
  if (!(result.peak_high > 0)) measured.low = measured.high = result.peak_rate;
  if (!is_mismatch(expected, measured, probing.tolerance)) return check;

  store::Store::MismatchRow m;
  m.testbed = config.name();
  m.search_id = search_id;
  m.sample = sample;
  m.expected = expected;
  m.measured = result.peak_rate;
  m.ratio = result.peak_rate / expected;
  // The stage times of the trials at λ* against the model's centers at the measured λ*.
  std::vector<TrialResult> at_peak;
  for (const auto& load : result.loads) {
    if (load.verdict == Verdict::kPeak) at_peak.insert(at_peak.end(), load.trials.begin(), load.trials.end());
  }
  const CenterCheck centers = check_centers(store, config, sample, result.peak_rate, at_peak);
  set_center(m, centers);
  Recorded r = record_mismatch(store, config, probing, m, from_probe, attributes);
  check.mismatch_id = r.id;
  check.probe_ids = r.probe_ids;
  log << fmt::format(
      "mismatch: {} at {} (search {}): measured λ* {:.1f}/s, expected {:.1f}/s (ratio {:.2f}); attributes: "
      "{}{}; {}\n",
      r.id, sample.key(), search_id, m.measured, m.expected, m.ratio, ranking_text(r.ranked),
      center_text(centers), probes_text(r, from_probe));
  return check;
}

FixedRunCheck check_fixed_run(store::Store& store, const Config& config, const ProbeConfig& probing,
                              const Sample& sample, std::int64_t run_id, double rate,
                              const std::vector<TrialResult>& trials, const MeanInterval& response,
                              std::ostream& log) {
  FixedRunCheck check;
  check.centers = check_centers(store, config, sample, rate, trials);
  if (!config.model()) return check;
  try {
    PeakExpectation e = expect_peak(config, sample, load_calibrations(store, config), rate);
    check.bottleneck = e.at.bottleneck;
    if (e.at.stable && std::isfinite(e.at.response_ms)) check.expected_ms = e.at.response_ms;
  } catch (const InputError& err) {
    log << "workbench: no expectation for this run: " << err.what() << "\n";
    return check;
  }
  if (!check.expected_ms) return check;
  const double expected = *check.expected_ms;
  check.mismatch =
      is_mismatch(expected, MeasuredPeak{response.mean, response.low, response.high}, probing.tolerance);
  if (!check.mismatch) return check;

  store::Store::MismatchRow m;
  m.testbed = config.name();
  m.search_id = run_id;
  m.sample = sample;
  m.metric = store::MismatchMetric::kMeanMs;
  m.expected = expected;
  m.measured = response.mean;
  m.ratio = response.mean / expected;
  set_center(m, check.centers);
  Recorded r = record_mismatch(store, config, probing, m, std::nullopt, nullptr);
  check.mismatch_id = r.id;
  check.probe_ids = r.probe_ids;
  log << fmt::format(
      "mismatch: {} at {} (fixed-rate run {} at {:g}/s): measured R {:.3g} ms (CI {:.3g}-{:.3g}), expected "
      "{:.3g} ms (ratio {:.2f}); attributes: {}{}; {}\n",
      r.id, sample.key(), run_id, rate, response.mean, response.low, response.high, expected, m.ratio,
      ranking_text(r.ranked), center_text(check.centers), probes_text(r, std::nullopt));
  return check;
}

}  // namespace wb
