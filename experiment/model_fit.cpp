#include "experiment/model_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "store/store.hpp"

namespace wb {

namespace {

// A trial the open network can describe: something completed and the offered rate was kept up.
bool kept_up(const TrialResult& t) {
  return t.completed > 0 && t.mean_ms > 0 && t.achieved_rate >= 0.9 * t.offered_rate;
}

std::vector<LoadPoint> points_of(store::Store& store, std::int64_t search_id, const Sample& sample,
                                 double below_rate) {
  std::vector<LoadPoint> out;
  for (const store::StoredTrial& s : store.trials(search_id)) {
    if (kept_up(s.trial) && s.trial.offered_rate <= below_rate)
      out.push_back(LoadPoint{sample, s.trial.offered_rate, s.trial.mean_ms});
  }
  return out;
}

// The extrapolation check of one search that found λ*: fits from scratch on its low-load trials.
ExtrapolationRow extrapolate(const Config& config, store::Store& store, const store::SearchRecord& s,
                             const std::vector<CalibratedDemand>& measured, double low_fraction) {
  ExtrapolationRow row;
  row.search_id = s.id;
  row.sample = s.sample;
  row.measured_peak = *s.peak_rate;
  std::vector<LoadPoint> low = points_of(store, s.id, s.sample, low_fraction * row.measured_peak);
  row.points = low.size();
  for (const LoadPoint& p : low) row.highest_rate = std::max(row.highest_rate, p.rate);
  const double r_sat = config.peak().r_sat_ms;
  try {
    DemandInference fit = infer_demands(config, low, measured);
    double peak = inferred_peak(config, fit, s.sample, measured);
    if (std::isfinite(peak) && peak > 0) row.queueing = peak;
  } catch (const InputError&) {  // too few trials: the row says so by its empty cell
  }
  row.linear = regression_peak(Regression::kLinear, low, r_sat);
  row.quadratic = regression_peak(Regression::kQuadratic, low, r_sat);
  row.power_law = regression_peak(Regression::kPowerLaw, low, r_sat);
  return row;
}

}  // namespace

ModelFitResult fit_model_from_store(const Config& config, const std::string& store_path,
                                    const ModelFitRequest& r) {
  if (!config.model()) throw InputError(config.file() + ": no [model] section: nothing to calibrate");
  std::optional<Sample> only;
  if (!r.set.empty()) only = config.sample(r.set);
  if (!(r.low_fraction > 0 && r.low_fraction < 1)) throw InputError("--low-load must be between 0 and 1");
  if (!std::filesystem::exists(store_path))
    throw InputError(fmt::format("no store at {}: nothing measured to fit the model to", store_path));
  store::Store store(store_path);
  // Demands measured by other means stay; earlier fits are replaced, not compounded.
  std::vector<CalibratedDemand> measured;
  for (CalibratedDemand& c : load_calibrations(store, config)) {
    if (c.source.rfind("fitted", 0) != 0) measured.push_back(std::move(c));
  }
  ModelFitResult out;
  std::vector<LoadPoint> points;
  std::set<Sample> samples;
  for (std::int64_t id : store.search_ids(config.name())) {
    std::optional<store::SearchRecord> s = store.search(id);
    if (!s || (only && s->sample != *only)) continue;
    std::vector<LoadPoint> p = points_of(store, id, s->sample, std::numeric_limits<double>::infinity());
    if (!p.empty()) samples.insert(s->sample);
    points.insert(points.end(), p.begin(), p.end());
    if (store::has_peak(s->status) && s->peak_rate && *s->peak_rate > 0)
      out.extrapolation.push_back(extrapolate(config, store, *s, measured, r.low_fraction));
  }
  if (points.empty()) {
    throw InputError(
        fmt::format("no measured loads of {}{} in {}: run `workbench peak` or `workbench trial` first",
                    config.name(), only ? " at " + only->key() : "", store.path()));
  }
  out.samples.assign(samples.begin(), samples.end());
  out.fit = infer_demands(config, points, measured);
  out.stored = inferred_calibrations(config, out.fit, out.samples, measured);
  if (r.store) {
    for (const CalibratedDemand& c : out.stored) {
      store.add_calibration(store::Store::CalibrationRow{config.name(), c.center, c.sample, c.demand_ms,
                                                         c.visits, c.source, ""});
    }
  }
  return out;
}

}  // namespace wb
