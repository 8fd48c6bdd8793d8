#include "report/report_json.hpp"

#include <cmath>

#include "experiment/expectation_record.hpp"
#include "experiment/json_values.hpp"
#include "experiment/probe_check.hpp"

namespace wb {

namespace {

nlohmann::json loads_json(const SearchView& v) {
  nlohmann::json loads = nlohmann::json::array();
  for (std::size_t i = 0; i < v.loads.size(); ++i) {
    const LoadView& l = v.loads[i];
    nlohmann::json ci;
    if (l.load.ci) ci = {{"mean", l.load.ci->mean}, {"low", l.load.ci->low}, {"high", l.load.ci->high}};
    loads.push_back({{"order", i + 1},
                     {"load_index", l.load.load_index},
                     {"rate", l.load.rate},
                     {"runlength_s", l.load.runlength_s},
                     {"trials", l.load.trials},
                     {"ci_ms", ci},
                     {"metric_ms", number_or_null(l.metric_ms)},
                     {"mean_ms", number_or_null(l.mean_ms)},
                     {"p50_ms", number_or_null(l.p50_ms)},
                     {"p90_ms", number_or_null(l.p90_ms)},
                     {"p99_ms", number_or_null(l.p99_ms)},
                     {"achieved_rate", number_or_null(l.achieved_rate)},
                     {"saturated", l.load.saturated},
                     {"verdict", l.load.verdict}});
  }
  return loads;
}

nlohmann::json search_json(const Config& config, const SearchView& v) {
  const auto& r = v.row;
  nlohmann::json j{
      {"search_id", r.search.id},
      {"sample", sample_json(config, r.search.sample)},
      {"status", to_string(r.search.status)},
      {"measured", opt_json(r.search.peak_rate)},
      {"trials", r.search.trials},
      {"cost_s", r.search.cost_s},
      {"expected", r.expectation ? opt_json(r.expectation->peak_rate) : nlohmann::json()},
      {"bottleneck", r.expectation ? nlohmann::json(r.expectation->bottleneck) : nlohmann::json()},
      {"gap", opt_json(r.gap)},
      {"within_tolerance",
       r.gap ? nlohmann::json(std::abs(*r.gap) <= kExpectationTolerance) : nlohmann::json()}};
  if (r.expectation) j["calibrated"] = nlohmann::json::parse(r.expectation->calibrated_json);
  nlohmann::json interval;
  if (v.interval) interval = {{"low", v.interval->low}, {"high", opt_json(v.interval->high)}};
  j["peak_interval"] = interval;
  j["loads"] = loads_json(v);
  return j;
}

nlohmann::json surface_view_json(const Config& config, const SurfaceView& v) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : v.measured) {
    points.push_back({{"sample", sample_json(config, p.sample)},
                      {"search_id", p.search_id},
                      {"measured", p.measured},
                      {"fitted", number_or_null(p.fitted)},
                      {"error", std::isfinite(p.fitted) ? nlohmann::json((p.measured - p.fitted) / p.fitted)
                                                        : nlohmann::json()}});
  }
  nlohmann::json design = nlohmann::json::array();
  for (const auto& s : v.design) design.push_back(sample_json(config, s));
  nlohmann::json grid;
  if (v.grid) {
    nlohmann::json z = nlohmann::json::array();
    for (Eigen::Index i = 0; i < v.grid->z.rows(); ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (Eigen::Index k = 0; k < v.grid->z.cols(); ++k) row.push_back(number_or_null(v.grid->z(i, k)));
      z.push_back(row);
    }
    grid = {{"x", v.grid->x}, {"y", v.grid->y}, {"peak_rate", z}};
  }
  return {{"surface_id", v.id},
          {"status", v.status},
          {"factors", v.factors},
          {"design", design},
          {"model", v.model.empty() ? nlohmann::json() : nlohmann::json(v.model)},
          {"fit_error", v.fit_error.empty() ? nlohmann::json() : nlohmann::json(v.fit_error)},
          {"r2", opt_json(v.r2)},
          {"mape_loo", opt_json(v.cv_mape)},
          {"points", points},
          {"grid", grid}};
}

nlohmann::json probes_json(const Config& config, const ReportData& d) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : d.probes) {
    out.push_back({{"probe_id", p.id},
                   {"mismatch_id", p.mismatch_id},
                   {"sample", sample_json(config, p.sample)},
                   {"attribute", p.attribute},
                   {"priority", p.priority},
                   {"status", to_string(p.status)},
                   {"search_id", p.search_id ? nlohmann::json(*p.search_id) : nlohmann::json()}});
  }
  return out;
}

}  // namespace

nlohmann::json report_json(const Config& config, const ReportData& d) {
  nlohmann::json searches = nlohmann::json::array();
  for (const auto& v : d.searches) searches.push_back(search_json(config, v));
  nlohmann::json mismatches = nlohmann::json::array();
  for (const auto& m : d.expectations.mismatches) {
    mismatches.push_back({{"mismatch_id", m.id},
                          {"search_id", m.search_id},
                          {"sample", sample_json(config, m.sample)},
                          {"metric", to_string(m.metric)},
                          {"expected", m.expected},
                          {"measured", m.measured},
                          {"ratio", m.ratio},
                          {"status", to_string(m.status)},
                          {"attributes", nlohmann::json::parse(m.attributes_json)},
                          {"center", m.center ? nlohmann::json(*m.center) : nlohmann::json()},
                          {"center_detail", mismatch_center_json(m)}});
  }
  nlohmann::json surfaces = nlohmann::json::array();
  for (const auto& s : d.surfaces) surfaces.push_back(surface_view_json(config, s));
  nlohmann::json cost = nlohmann::json::array();
  for (const auto& c : d.cost)
    cost.push_back({{"at", c.at},
                    {"elapsed_s", c.elapsed_s},
                    {"cumulative_s", c.cumulative_s},
                    {"search_id", c.search_id}});
  return {{"testbed", config.name()},
          {"region",
           {{"metric", metric_name(d.region.metric)},
            {"sat_ms", d.region.sat_ms},
            {"low_ms", d.region.low_ms()},
            {"high_ms", d.region.high_ms()}}},
          {"searches", searches},
          {"tolerance", kExpectationTolerance},
          {"fidelity", opt_json(d.expectations.fidelity.value)},
          {"fidelity_n", d.expectations.fidelity.n},
          {"mismatches", mismatches},
          {"surfaces", surfaces},
          {"tree", d.tree ? d.tree->to_json(false) : nlohmann::json()},
          {"probes", probes_json(config, d)},
          {"cost", cost}};
}

}  // namespace wb
