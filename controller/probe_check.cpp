#include "controller/probe_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>

#include "controller/expectation_zcart.hpp"

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

}  // namespace

std::vector<ClassifiedObservation> classified_observations(store::Store& store, const Config& config,
                                                           const std::vector<MeasuredVsExpected>& rows,
                                                           double tolerance) {
  std::vector<ClassifiedObservation> out;
  for (const auto& r : rows) {
    if (r.search.status != "found" || !r.search.peak_rate || !r.expectation || !r.expectation->peak_rate)
      continue;
    auto values = encode_sample(config, r.search.sample);
    if (!values) continue;
    MeasuredPeak m = measured_peak(*r.search.peak_rate, store.peak_interval(r.search.id));
    out.push_back(ClassifiedObservation{*values, is_mismatch(*r.expectation->peak_rate, m, tolerance)});
  }
  return out;
}

SearchCheck check_search(store::Store& store, const Config& config, const ProbeConfig& probing,
                         const Sample& sample, std::int64_t search_id, const SearchResult& result,
                         std::optional<std::int64_t> from_probe, std::ostream& log) {
  SearchCheck check;
  check.expectation_stored = record_expectation(store, config, sample, search_id, log);
  if (!check.expectation_stored || result.status != SearchStatus::kFound) return check;
  std::optional<store::Store::ExpectationRow> e = store.expectation(search_id);
  if (!e || !e->peak_rate) return check;
  const double expected = *e->peak_rate;
  MeasuredPeak measured{result.peak_rate, result.peak_low, result.peak_high};
  if (!(result.peak_high > 0)) measured.low = measured.high = result.peak_rate;
  if (!is_mismatch(expected, measured, probing.tolerance)) return check;

  std::vector<MeasuredVsExpected> rows = measured_vs_expected(store, config.name());
  std::vector<RankedAttribute> ranked =
      rank_attributes(zcart_schema(config), classified_observations(store, config, rows, probing.tolerance));

  store::Store::MismatchRow m;
  m.testbed = config.name();
  m.search_id = search_id;
  m.sample = sample;
  m.expected = expected;
  m.measured = result.peak_rate;
  m.ratio = result.peak_rate / expected;
  nlohmann::json attrs = nlohmann::json::array();
  for (const auto& r : ranked) attrs.push_back({{"name", r.name}, {"gain", r.gain}});
  m.attributes_json = attrs.dump();

  std::vector<store::Store::ProbeRow> probes;
  const bool plan = !from_probe && !store.has_mismatch_at(config.name(), sample);
  if (plan) {
    std::set<std::string> taken;
    for (const auto& r : rows) taken.insert(r.search.sample.key());
    for (const auto& p : store.probes(config.name(), true)) {
      if (p.status != "cancelled") taken.insert(p.sample.key());
    }
    const std::int64_t not_before = probe_not_before(probing, unix_now());
    for (const PlannedProbe& p :
         plan_probes(sample, ranked, config.factors(), taken, probing.top_attributes, probing.radius)) {
      store::Store::ProbeRow row;
      row.testbed = config.name();
      row.sample = p.sample;
      row.attribute = p.attribute;
      row.priority = p.priority;
      row.not_before = not_before;
      probes.push_back(row);
    }
  }
  auto [id, probe_ids] = store.add_mismatch(m, probes);
  check.mismatch_id = id;
  check.probe_ids = probe_ids;
  std::ostringstream line;
  line << fmt::format(
      "mismatch: {} at {} (search {}): measured λ* {:.1f}/s, expected {:.1f}/s (ratio {:.2f}); attributes: "
      "{}; ",
      id, sample.key(), search_id, m.measured, m.expected, m.ratio, ranking_text(ranked));
  if (from_probe)
    line << fmt::format("found by probe {}, no new probes", *from_probe);
  else if (!plan)
    line << "probes were planned at this sample before";
  else
    line << fmt::format("{} probe(s) planned", probe_ids.size());
  log << line.str() << "\n";
  return check;
}

}  // namespace wb
