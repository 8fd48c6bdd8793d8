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
};

std::vector<LearningSample> learning_samples(const Config& config,
                                             const std::vector<CalibratedDemand>& calibrations,
                                             const std::vector<MeasuredVsExpected>& rows,
                                             const ZCartAttributes& attributes) {
  std::vector<LearningSample> out;
  for (auto& s : sample_observations(attributes, rows)) {
    Observation& o = s.observation;
    out.push_back(LearningSample{s.sample, o.observed, o.expected, std::move(o.values),
                                 effective_model(config, s.sample, calibrations)});
  }
  return out;
}

double recalibrated_peak_at(const EffectiveModel& m, const std::string& center, double log_k, double r_sat) {
  return predicted_peak(scale_demand(m.network, m.sample, center, std::exp(log_k)), m.sample, r_sat);
}

double recalibrated_peak_with(const EffectiveModel& m, const DemandCurve& curve, const Sample& sample,
                              double r_sat) {
  return recalibrated_peak_at(m, curve.center, curve.log_multiplier(sample), r_sat);
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

struct RecalibrationCandidate {
  DemandCurve curve;
  std::vector<CurvePoint> points;
  std::vector<std::optional<std::size_t>> point_of;  // sample -> its point, when exact
  HeldOutError error;
};

// The recalibration (center, factor) with the least leave-one-out error.
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
    for (const Factor& factor : config.factors()) {
      RecalibrationCandidate c;
      c.point_of.resize(samples.size());
      for (std::size_t i = 0; i < samples.size(); ++i) {
        if (!k[i].exact) continue;
        c.point_of[i] = c.points.size();
        c.points.push_back(CurvePoint{samples[i].sample, std::log(k[i].k)});
      }
      if (c.points.size() < 2) continue;
      for (std::size_t i = 0; i < samples.size(); ++i) {
        if (between_solves) between_solves();
        DemandCurve held =
            fit_demand_curve(center.name, factor.name, factor.numeric, c.points, c.point_of[i]);
        add_held_out_error(&c.error, recalibrated_peak_with(samples[i].model, held, samples[i].sample, r_sat),
                           samples[i].measured);
      }
      if (!best || c.error.sum_sq < best->error.sum_sq) {
        c.curve = fit_demand_curve(center.name, factor.name, factor.numeric, c.points);
        best = std::move(c);
      }
    }
  }
  return best;
}

std::string held_out_percent(const HeldOutError& e) {
  return std::isfinite(e.rms()) ? fmt::format("{:.1f}%", 100 * (std::exp(e.rms()) - 1)) : "-";
}

}  // namespace

LearnedModel learn_model(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                         const std::vector<MeasuredVsExpected>& rows, const ZCartOptions& tree_options,
                         const std::function<void()>& between_solves) {
  LearnedModel out;
  if (!config.model()) return out;
  const ZCartAttributes attributes(config);
  const std::vector<LearningSample> samples = learning_samples(config, calibrations, rows, attributes);
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
  std::optional<RecalibrationCandidate> best = best_recalibration(config, samples, r_sat, between_solves);
  if (!best) {
    out.why = "no center's demand can be recalibrated to these measurements";
    return out;
  }
  out.curve = best->curve;
  out.recalibrated = best->error;
  // Z-CART on the recalibrated network: with sample i held out of the curve and of the tree.
  std::vector<DemandCurve> held(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i)
    held[i] = fit_demand_curve(best->curve.center, best->curve.factor, best->curve.numeric, best->points,
                               best->point_of[i]);
  // A held-out point moves the curve at its own level only (and between its neighbours when it is
  // its level's only sample): most of these λ* repeat, so they are solved once per multiplier.
  std::vector<std::vector<double>> expected(samples.size(), std::vector<double>(samples.size()));
  std::map<std::pair<std::size_t, double>, double> solved;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (between_solves) between_solves();
    for (std::size_t j = 0; j < samples.size(); ++j) {
      const double lk = held[i].log_multiplier(samples[j].sample);
      auto [it, fresh] = solved.try_emplace({j, lk}, 0.0);
      if (fresh) it->second = recalibrated_peak_at(samples[j].model, best->curve.center, lk, r_sat);
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
      samples.size(), held_out_percent(out.zcart), out.curve->center + " demand by " + out.curve->factor,
      held_out_percent(out.recalibrated), held_out_percent(out.zcart_on_recalibrated),
      learned_form_name(out.form));
  return out;
}

namespace {

// What a learned model depends on, as text: equal texts, equal models.
std::string learning_inputs(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                            const std::vector<MeasuredVsExpected>& rows, const ZCartOptions& o) {
  std::string text = "learned model 1\n";
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
  j["recalibration"] = m.curve ? nlohmann::json{{"center", m.curve->center},
                                                {"factor", m.curve->factor},
                                                {"description", m.curve->describe()}}
                               : nlohmann::json();
  return j;
}

nlohmann::json learned_model_json(const LearnedModel& m) {
  nlohmann::json j{{"form", static_cast<int>(m.form)},
                   {"samples", m.samples},
                   {"why", m.why},
                   {"zcart", stored_held_out_json(m.zcart)},
                   {"recalibrated", stored_held_out_json(m.recalibrated)},
                   {"zcart_on_recalibrated", stored_held_out_json(m.zcart_on_recalibrated)}};
  if (m.curve) {
    j["curve"] = {{"center", m.curve->center}, {"factor", m.curve->factor}, {"numeric", m.curve->numeric},
                  {"knots", m.curve->knots},   {"levels", m.curve->levels}, {"points", m.curve->points}};
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
    if (j.contains("curve")) {
      const auto& c = j.at("curve");
      DemandCurve curve;
      curve.center = c.at("center").get<std::string>();
      curve.factor = c.at("factor").get<std::string>();
      curve.numeric = c.at("numeric").get<bool>();
      curve.knots = c.at("knots").get<std::vector<std::pair<double, double>>>();
      curve.levels = c.at("levels").get<std::map<std::string, double>>();
      curve.points = c.at("points").get<std::size_t>();
      m.curve = std::move(curve);
    }
    if (m.form != LearnedForm::kZCart && !m.curve)
      throw Error("learned model: a recalibrated form without its curve");
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
  const std::string inputs = learning_inputs(config, calibrations, rows, tree_options);
  if (auto row = store.learned_model(config.name()); row && row->inputs == inputs) {
    // A row this workbench cannot read (another version wrote it) is learned again.
    try {
      return learned_model_from_json(nlohmann::json::parse(row->model_json));
    } catch (const std::exception&) {
    }
  }
  LearnedModel m = learn_model(config, calibrations, rows, tree_options, between_solves);
  // Only a cache: a store that cannot be written now (read-only, busy) costs the next reader the
  // learning again, not this answer.
  try {
    store.put_learned_model(config.name(), {inputs, learned_model_json(m).dump()});
  } catch (const std::exception&) {
  }
  return m;
}

double recalibrated_peak(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                         const DemandCurve& curve, const Sample& sample) {
  return recalibrated_peak_with(effective_model(config, sample, calibrations), curve, sample,
                                config.peak().r_sat_ms);
}

ZCart zcart_on_recalibrated(const Config& config, const std::vector<CalibratedDemand>& calibrations,
                            const std::vector<MeasuredVsExpected>& rows, const DemandCurve& curve,
                            const ZCartOptions& tree_options) {
  const ZCartAttributes attributes(config);
  std::vector<Observation> obs;
  for (const LearningSample& s : learning_samples(config, calibrations, rows, attributes)) {
    const double e = recalibrated_peak_with(s.model, curve, s.sample, config.peak().r_sat_ms);
    obs.push_back(Observation{s.values, e > 0 && std::isfinite(e) ? e : s.stored_expected, s.measured});
  }
  ZCart tree(attributes.schema(), tree_options);
  tree.fit(obs);
  return tree;
}

}  // namespace wb
