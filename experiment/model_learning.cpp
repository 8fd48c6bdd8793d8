#include "experiment/model_learning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "experiment/expectation_zcart.hpp"
#include "experiment/zcart_attributes.hpp"

namespace wb {

std::string_view learned_form_name(LearnedForm form) {
  switch (form) {
    case LearnedForm::kZCart: return "zcart";
    case LearnedForm::kRecalibrated: return "recalibrated";
    case LearnedForm::kZCartOnRecalibrated: return "zcart on recalibrated";
  }
  return "zcart";
}

double HeldOutError::rms() const {
  return n == 0 ? std::numeric_limits<double>::infinity() : std::sqrt(sum_sq / static_cast<double>(n));
}

namespace {

// A richer form answers only when its held-out RMS log error is below this share of the simpler
// one's: differences of a few percent are the noise of a dozen or two leave-one-out predictions
// (docs/decisions.md#recalibration).
constexpr double kRequiredGain = 0.9;

// One distinct measured sample: its λ* (the geometric mean of its searches'), the expectation
// stored with its first search (what the persisted tree was trained on), its tree attributes and
// the network solved for it.
struct LearningSample {
  Sample sample;
  double measured = 0;
  double stored_expected = 0;
  std::vector<double> values;
  EffectiveModel model;
  std::map<std::string, double> stage_ms;  // what its SUT reported, if anything
};

std::vector<LearningSample> learning_samples(const Config& config,
                                             const std::vector<CalibratedDemand>& calibrations,
                                             const std::vector<MeasuredVsExpected>& rows,
                                             const ZCartAttributes& attributes,
                                             const SampleStages& stages = {}) {
  std::vector<LearningSample> out;
  for (auto& s : sample_observations(attributes, rows)) {
    Observation& o = s.observation;
    auto st = stages.find(s.sample.key());
    out.push_back(LearningSample{s.sample, o.observed, o.expected, std::move(o.values),
                                 effective_model(config, s.sample, calibrations),
                                 st == stages.end() ? std::map<std::string, double>{} : st->second});
  }
  return out;
}

double recalibrated_peak_with(const EffectiveModel& m, const Recalibration& r, double r_sat) {
  return predicted_peak(recalibrate(m.network, m.sample, r), m.sample, r_sat);
}

void add_held_out_error(HeldOutError* e, double predicted, double measured) {
  // A model that predicts no λ* at all (0 or unbounded) is as wrong as the worst bound we solve in.
  const double worst = std::log(kMaxDemandMultiplier);
  const double err = predicted > 0 && std::isfinite(predicted) ? std::log(predicted / measured) : worst;
  e->sum_sq += err * err;
  ++e->n;
  if (std::abs(std::exp(err) - 1) <= kExpectationTolerance) ++e->within;
}

// Leave-one-out error of a Z-CART tree whose observation j, when sample i is held out, has the
// expectation expected(i, j).
HeldOutError zcart_held_out(const std::vector<Attribute>& schema, const ZCartOptions& options,
                            const std::vector<LearningSample>& samples,
                            const std::function<double(std::size_t, std::size_t)>& expected) {
  HeldOutError e;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    std::vector<Observation> obs;
    for (std::size_t j = 0; j < samples.size(); ++j)
      if (j != i) obs.push_back(Observation{samples[j].values, expected(i, j), samples[j].measured});
    ZCart tree(schema, options);
    tree.fit(obs);
    add_held_out_error(&e, tree.predict_value(samples[i].values.data(), expected(i, i)), samples[i].measured);
  }
  return e;
}

// A recalibration fitted to every point, and to all but each sample's (held[i]), with the
// leave-one-out error of λ* those give.
struct RecalibrationCandidate {
  Recalibration fit;
  std::vector<Recalibration> held;
  HeldOutError error;
};

void score_held_out(RecalibrationCandidate* c, const std::vector<LearningSample>& samples, double r_sat,
                    const std::function<void()>& between_solves) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (between_solves) between_solves();
    add_held_out_error(&c->error, recalibrated_peak_with(samples[i].model, c->held[i], r_sat),
                       samples[i].measured);
  }
}

// One center's curve over one factor from `points` (point_of: each sample's point, when it has one),
// fitted to all of them and without each sample's.
void add_curve(RecalibrationCandidate* c, const std::string& center, const Factor& factor,
               const std::vector<CurvePoint>& points,
               const std::vector<std::optional<std::size_t>>& point_of) {
  c->fit.curves.push_back(fit_demand_curve(center, factor.name, factor.numeric, points));
  c->held.resize(point_of.size());
  for (std::size_t i = 0; i < point_of.size(); ++i)
    c->held[i].curves.push_back(fit_demand_curve(center, factor.name, factor.numeric, points, point_of[i]));
}

// From λ*: the (center, factor) whose curve of solved multipliers has the least leave-one-out error.
std::optional<RecalibrationCandidate> best_recalibration(const Config& config,
                                                         const std::vector<LearningSample>& samples,
                                                         double r_sat,
                                                         const std::function<void()>& between_solves) {
  std::optional<RecalibrationCandidate> best;
  for (const ServiceCenter& center : config.model()->centers) {
    if (center.pool) continue;
    // The multiplier at each sample depends on the center only, not on the factor it follows.
    std::vector<SolvedMultiplier> k;
    for (const LearningSample& s : samples) {
      if (between_solves) between_solves();
      const ServiceCenter* here = s.model.network.find(center.name);
      if (here == nullptr || !(here->demand_ms.eval(s.model.sample) > 0)) break;
      k.push_back(solve_multiplier(s.model.network, s.model.sample, center.name, r_sat, s.measured));
    }
    if (k.size() != samples.size()) continue;  // no demand to scale at some sample
    std::vector<CurvePoint> points;
    std::vector<std::optional<std::size_t>> point_of(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (!k[i].exact) continue;
      point_of[i] = points.size();
      points.push_back(CurvePoint{samples[i].sample, std::log(k[i].k)});
    }
    if (points.size() < 2) continue;
    for (const Factor& factor : config.factors()) {
      RecalibrationCandidate c;
      add_curve(&c, center.name, factor, points, point_of);
      score_held_out(&c, samples, r_sat, between_solves);
      if (!best || c.error.sum_sq < best->error.sum_sq) best = std::move(c);
    }
  }
  return best;
}

// From stage times: each center a stage names (its service time per request, over the demand the
// network gives it there) follows the factor that predicts its held-out multipliers best; every
// such curve applies at once. Needs no solve but the held-out λ*.
std::optional<RecalibrationCandidate> stage_recalibration(const Config& config,
                                                          const std::vector<LearningSample>& samples,
                                                          double r_sat,
                                                          const std::function<void()>& between_solves) {
  RecalibrationCandidate c;
  c.fit.from_stages = true;
  c.held.assign(samples.size(), Recalibration{{}, true});
  for (const ServiceCenter& center : config.model()->centers) {
    if (center.pool) continue;
    std::vector<CurvePoint> points;
    std::vector<std::optional<std::size_t>> point_of(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const ServiceCenter* here = samples[i].model.network.find(center.name);
      auto stage = samples[i].stage_ms.find(center.name);
      if (here == nullptr || stage == samples[i].stage_ms.end()) continue;
      const double demand = here->demand_ms.eval(samples[i].model.sample) * here->visits;
      if (!(demand > 0) || !(stage->second > 0)) continue;
      point_of[i] = points.size();
      points.push_back(CurvePoint{samples[i].sample, std::log(stage->second / demand)});
    }
    if (points.size() < 2) continue;
    const Factor* best = nullptr;
    double least = std::numeric_limits<double>::infinity();
    for (const Factor& factor : config.factors()) {
      double sse = 0;
      for (std::size_t p = 0; p < points.size(); ++p) {
        const double e = fit_demand_curve(center.name, factor.name, factor.numeric, points, p)
                             .log_multiplier(points[p].sample) -
                         points[p].log_k;
        sse += e * e;
      }
      if (sse < least) {
        least = sse;
        best = &factor;
      }
    }
    if (best != nullptr) add_curve(&c, center.name, *best, points, point_of);
  }
  if (c.fit.curves.empty()) return std::nullopt;
  score_held_out(&c, samples, r_sat, between_solves);
  return c;
}

// "disk demand by threads", "cpu demand by threads, disk demand by disks, from stage times"
std::string recalibration_text(const Recalibration& r) {
  std::string out;
  for (const DemandCurve& c : r.curves)
    out += (out.empty() ? "" : ", ") + c.center + " demand by " + c.factor;
  return out + (r.from_stages ? ", from stage times" : "");
}

std::string held_out_percent(const HeldOutError& e) {
  return std::isfinite(e.rms()) ? fmt::format("{:.1f}%", 100 * (std::exp(e.rms()) - 1)) : "-";
}

}  // namespace

LearnedModel learn_model(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                         const std::vector<MeasuredVsExpected>& rows, const ZCartOptions& tree_options,
                         const std::function<void()>& between_solves, const SampleStages& stages) {
  LearnedModel out;
  if (!config.model()) return out;
  const ZCartAttributes attributes(config);
  const std::vector<LearningSample> samples =
      learning_samples(config, calibrations, rows, attributes, stages);
  out.samples = samples.size();
  if (samples.size() < kMinRecalibrationSamples) {
    out.why =
        fmt::format("{} measured sample{}: too few to compare by held-out error (Z-CART answers until {})",
                    samples.size(), samples.size() == 1 ? "" : "s", kMinRecalibrationSamples);
    return out;
  }
  const double r_sat = config.peak().r_sat_ms;
  out.zcart = zcart_held_out(attributes.schema(), tree_options, samples,
                             [&](std::size_t, std::size_t j) { return samples[j].stored_expected; });
  // Nothing deviates, nothing to recalibrate: and the solves it would take are the expensive part
  // (tenths of a second each with a pool of 64 or more tokens).
  const bool deviates = std::any_of(samples.begin(), samples.end(), [](const LearningSample& s) {
    return std::abs(s.measured / s.stored_expected - 1) > kExpectationTolerance;
  });
  if (!deviates) {
    out.why =
        fmt::format("all {} measured samples lie within {:.0f}% of the expectation: nothing to recalibrate",
                    samples.size(), 100 * kExpectationTolerance);
    return out;
  }
  // From λ* and, where the SUT reported them, from stage times: the one with less held-out error.
  std::optional<RecalibrationCandidate> best = best_recalibration(config, samples, r_sat, between_solves);
  if (std::optional<RecalibrationCandidate> staged =
          stage_recalibration(config, samples, r_sat, between_solves);
      staged && (!best || staged->error.sum_sq < best->error.sum_sq))
    best = std::move(staged);
  if (!best) {
    out.why = "no center's demand can be recalibrated to these measurements";
    return out;
  }
  out.recalibration = best->fit;
  out.recalibrated = best->error;
  // Z-CART on the recalibrated network: with sample i held out of the curves and of the tree. A
  // held-out point moves a curve at its own level only (and between its neighbours when it is its
  // level's only sample): most of these λ* repeat, so they are solved once per set of multipliers.
  std::vector<std::vector<double>> expected(samples.size(), std::vector<double>(samples.size()));
  std::map<std::pair<std::size_t, std::vector<double>>, double> solved;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (between_solves) between_solves();
    for (std::size_t j = 0; j < samples.size(); ++j) {
      std::vector<double> lk;
      for (const DemandCurve& c : best->held[i].curves) lk.push_back(c.log_multiplier(samples[j].sample));
      auto [it, fresh] = solved.try_emplace({j, std::move(lk)}, 0.0);
      if (fresh) it->second = recalibrated_peak_with(samples[j].model, best->held[i], r_sat);
      expected[i][j] = it->second;
    }
  }
  out.zcart_on_recalibrated =
      zcart_held_out(attributes.schema(), tree_options, samples, [&](std::size_t i, std::size_t j) {
        const double e = expected[i][j];
        return e > 0 && std::isfinite(e) ? e : samples[j].stored_expected;
      });
  // The simpler form keeps the answer unless a richer one cuts its held-out error by a tenth:
  // first the tree on the model as configured, then the recalibration alone, then both.
  double least = out.zcart.rms();
  if (out.recalibrated.rms() < kRequiredGain * least) {
    out.form = LearnedForm::kRecalibrated;
    least = out.recalibrated.rms();
  }
  if (out.zcart_on_recalibrated.rms() < kRequiredGain * least) out.form = LearnedForm::kZCartOnRecalibrated;
  out.why = fmt::format(
      "held-out error over {} measured samples: Z-CART {}, recalibrated ({}) {}, Z-CART on it {}; "
      "{} answers",
      samples.size(), held_out_percent(out.zcart), recalibration_text(*out.recalibration),
      held_out_percent(out.recalibrated), held_out_percent(out.zcart_on_recalibrated),
      learned_form_name(out.form));
  return out;
}

namespace {

// What a learned model depends on, as text: equal texts, equal models.
std::string learning_inputs(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                            const std::vector<MeasuredVsExpected>& rows, const SampleStages& stages,
                            const ZCartOptions& o) {
  std::string text = "learned model 2\n";
  std::ifstream in(config.file());
  text += std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) + "\n";
  text += fmt::format("options {:.17g} {} {} {}\n", o.tolerance, o.min_leaf, o.keep_expectation, o.exact_add);
  for (const CalibratedDemand& c : calibrations)
    text += fmt::format("calibration {} {} {:.17g} {:.17g}\n", c.center, c.sample.key(), c.demand_ms,
                        c.visits.value_or(-1));
  for (const auto& r : rows) {
    if (!learnable(r)) continue;
    text += fmt::format("search {} {:.17g} {:.17g}\n", r.search.sample.key(), *r.search.peak_rate,
                        *r.expectation->peak_rate);
  }
  for (const auto& [sample, by_stage] : stages)
    for (const auto& [stage, ms] : by_stage) text += fmt::format("stage {} {} {:.17g}\n", sample, stage, ms);
  return text;
}

nlohmann::json stored_held_out_json(const HeldOutError& e) {
  return {{"n", e.n}, {"sum_sq", e.sum_sq}, {"within", e.within}};
}

HeldOutError stored_held_out_from_json(const nlohmann::json& j) {
  return HeldOutError{j.at("n").get<std::size_t>(), j.at("sum_sq").get<double>(),
                      j.at("within").get<std::size_t>()};
}

}  // namespace

nlohmann::json learned_model_report(const LearnedModel& m) {
  auto held_out = [](const HeldOutError& e) {
    const double rms = e.rms();
    return nlohmann::json{{"n", e.n},
                          {"rms_log_error", std::isfinite(rms) ? nlohmann::json(rms) : nlohmann::json()},
                          {"within_tolerance", e.within}};
  };
  nlohmann::json j{{"form", learned_form_name(m.form)},
                   {"samples", m.samples},
                   {"why", m.why},
                   {"held_out",
                    {{"zcart", held_out(m.zcart)},
                     {"recalibrated", held_out(m.recalibrated)},
                     {"zcart_on_recalibrated", held_out(m.zcart_on_recalibrated)}}}};
  j["recalibration"] = nlohmann::json();
  if (m.recalibration && !m.recalibration->curves.empty()) {
    const Recalibration& r = *m.recalibration;
    nlohmann::json curves = nlohmann::json::array();
    for (const DemandCurve& c : r.curves)
      curves.push_back({{"center", c.center}, {"factor", c.factor}, {"description", c.describe()}});
    // center and factor: the first curve's (the only one unless stage times measured several).
    j["recalibration"] = {{"center", r.curves.front().center},
                          {"factor", r.curves.front().factor},
                          {"from", r.from_stages ? "stage times" : "peak rates"},
                          {"description", r.describe()},
                          {"curves", curves}};
  }
  return j;
}

nlohmann::json learned_model_json(const LearnedModel& m) {
  nlohmann::json j{{"form", static_cast<int>(m.form)},
                   {"samples", m.samples},
                   {"why", m.why},
                   {"zcart", stored_held_out_json(m.zcart)},
                   {"recalibrated", stored_held_out_json(m.recalibrated)},
                   {"zcart_on_recalibrated", stored_held_out_json(m.zcart_on_recalibrated)}};
  if (m.recalibration) {
    nlohmann::json curves = nlohmann::json::array();
    for (const DemandCurve& c : m.recalibration->curves)
      curves.push_back({{"center", c.center},
                        {"factor", c.factor},
                        {"numeric", c.numeric},
                        {"knots", c.knots},
                        {"levels", c.levels},
                        {"points", c.points}});
    j["recalibration"] = {{"from_stages", m.recalibration->from_stages}, {"curves", curves}};
  }
  return j;
}

LearnedModel learned_model_from_json(const nlohmann::json& j) {
  try {
    LearnedModel m;
    const int form = j.at("form").get<int>();
    if (form < 0 || form > static_cast<int>(LearnedForm::kZCartOnRecalibrated))
      throw Error(fmt::format("learned model: unknown form {}", form));
    m.form = static_cast<LearnedForm>(form);
    m.samples = j.at("samples").get<std::size_t>();
    m.why = j.at("why").get<std::string>();
    m.zcart = stored_held_out_from_json(j.at("zcart"));
    m.recalibrated = stored_held_out_from_json(j.at("recalibrated"));
    m.zcart_on_recalibrated = stored_held_out_from_json(j.at("zcart_on_recalibrated"));
    if (j.contains("recalibration")) {
      const auto& r = j.at("recalibration");
      Recalibration rec;
      rec.from_stages = r.at("from_stages").get<bool>();
      for (const auto& c : r.at("curves")) {
        DemandCurve curve;
        curve.center = c.at("center").get<std::string>();
        curve.factor = c.at("factor").get<std::string>();
        curve.numeric = c.at("numeric").get<bool>();
        curve.knots = c.at("knots").get<std::vector<std::pair<double, double>>>();
        curve.levels = c.at("levels").get<std::map<std::string, double>>();
        curve.points = c.at("points").get<std::size_t>();
        rec.curves.push_back(std::move(curve));
      }
      if (rec.curves.empty()) throw Error("learned model: a recalibration without curves");
      m.recalibration = std::move(rec);
    }
    if (m.form != LearnedForm::kZCart && !m.recalibration)
      throw Error("learned model: a recalibrated form without its curves");
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("learned model: ") + e.what());
  }
}

LearnedModel current_learned_model(store::Store& store, const Config& config,
                                   const std::vector<CalibratedDemand>& calibrations,
                                   const std::vector<MeasuredVsExpected>& rows,
                                   const ZCartOptions& tree_options,
                                   const std::function<void()>& between_solves) {
  const SampleStages stages = sample_stage_times(store, rows);
  const std::string inputs = learning_inputs(config, calibrations, rows, stages, tree_options);
  if (auto row = store.learned_model(config.name()); row && row->inputs == inputs) {
    // A row this workbench cannot read (another version wrote it) is learned again.
    try {
      return learned_model_from_json(nlohmann::json::parse(row->model_json));
    } catch (const std::exception&) {
    }
  }
  LearnedModel m = learn_model(config, calibrations, rows, tree_options, between_solves, stages);
  // Only a cache: a store that cannot be written now (read-only, busy) costs the next reader the
  // learning again, not this answer.
  try {
    store.put_learned_model(config.name(), {inputs, learned_model_json(m).dump()});
  } catch (const std::exception&) {
  }
  return m;
}

double recalibrated_peak(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                         const Recalibration& r, const Sample& sample) {
  return recalibrated_peak_with(effective_model(config, sample, calibrations), r, config.peak().r_sat_ms);
}

SampleStages sample_stage_times(store::Store& store, const std::vector<MeasuredVsExpected>& rows) {
  // Below λ* only: past it a SUT's stages grow with what saturation adds (contention, swapping),
  // which is not its demand.
  std::map<std::string, std::map<std::string, std::pair<double, int>>> sums;
  for (const auto& r : rows) {
    if (!learnable(r)) continue;
    for (const store::StoredTrial& t : store.trials(r.search.id)) {
      if (t.trial.stage_ms.empty() || t.trial.offered_rate > *r.search.peak_rate) continue;
      for (const auto& [stage, ms] : t.trial.stage_ms) {
        auto& [sum, n] = sums[r.search.sample.key()][stage];
        sum += ms;
        ++n;
      }
    }
  }
  SampleStages out;
  for (const auto& [sample, by_stage] : sums)
    for (const auto& [stage, sn] : by_stage) out[sample][stage] = sn.first / sn.second;
  return out;
}

ZCart zcart_on_recalibrated(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                            const std::vector<MeasuredVsExpected>& rows, const Recalibration& r,
                            const ZCartOptions& tree_options) {
  const ZCartAttributes attributes(config);
  std::vector<Observation> obs;
  for (const LearningSample& s : learning_samples(config, calibrations, rows, attributes)) {
    const double e = recalibrated_peak_with(s.model, r, config.peak().r_sat_ms);
    obs.push_back(Observation{s.values, e > 0 && std::isfinite(e) ? e : s.stored_expected, s.measured});
  }
  ZCart tree(attributes.schema(), tree_options);
  tree.fit(obs);
  return tree;
}

}  // namespace wb
