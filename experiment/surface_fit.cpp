#include "experiment/surface_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "core/error.hpp"
#include "experiment/json_values.hpp"
#include "experiment/surface_plan.hpp"
#include "harness/sim/random.hpp"
#include "rsm/candidates.hpp"

namespace wb {

namespace {

// Whether every numeric factor's levels are positive (the log and inverse codings need it).
bool all_positive(const std::vector<const Factor*>& factors) {
  return std::all_of(factors.begin(), factors.end(), [](const Factor* f) {
    return std::all_of(f->numeric_levels.begin(), f->numeric_levels.end(), [](double v) { return v > 0; });
  });
}

// Each factor's coding (factor_coding): categorical ones by their levels, numeric ones as `coding`
// says ("auto" or a scale's name).
std::vector<Coding> codings_of(const std::vector<const Factor*>& factors, const std::string& coding) {
  std::vector<Coding> out;
  out.reserve(factors.size());
  for (const Factor* f : factors) out.push_back(factor_coding(*f, coding));
  return out;
}

bool same_scales(const std::vector<Coding>& a, const std::vector<Coding>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].scale() != b[i].scale()) return false;
  }
  return true;
}

std::vector<std::string> names_of(const std::vector<const Factor*>& factors) {
  std::vector<std::string> out;
  out.reserve(factors.size());
  for (const Factor* f : factors) out.push_back(f->name);
  return out;
}

}  // namespace

std::string expectation_inputs_key(const Config& config, const std::vector<CalibratedDemand>& calibrations) {
  std::ostringstream text;
  text << config.root() << "|v" << kExpectationVersion;
  for (const auto& c : calibrations)
    text << "|" << c.center << "@" << c.sample.key() << "=" << fmt::format("{}", c.demand_ms) << "x"
         << (c.visits ? fmt::format("{}", *c.visits) : std::string("-"));
  return fmt::format("{:016x}", sim::hash_text(text.str()));
}

namespace {

// The sample an anchor asks at: the base with the factors set to the point's values.
Sample anchor_sample(const Config& config, const Sample& base, const std::vector<std::string>& factors,
                     const double* x) {
  Sample s = base;
  for (std::size_t j = 0; j < factors.size(); ++j)
    s.set(factors[j], config.factor(factors[j])->axis_text(x[j]));
  return s;
}

}  // namespace

void warm_expectation_cache(store::Store& cache, const Config& config, const Sample& base,
                            const std::vector<std::string>& factors, const Eigen::MatrixXd& points,
                            const std::vector<CalibratedDemand>& calibrations) {
  if (!config.model()) return;
  const std::string inputs = expectation_inputs_key(config, calibrations);
  std::vector<Sample> todo;
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    const Eigen::RowVectorXd row = points.row(i);
    Sample s = anchor_sample(config, base, factors, row.data());
    if (!cache.cached_expected_peak(config.name(), s.key(), inputs)) todo.push_back(std::move(s));
  }
  if (todo.size() < 2) return;  // one solve gains nothing from threads
  // expect_peak is a pure function of const inputs: the solves share nothing but `next`. Outer
  // nullopt: no answer (left to the anchor, which reports it); inner nullopt: λ* unbounded.
  std::vector<std::optional<std::optional<double>>> answers(todo.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < todo.size(); i = next++) {
      try {
        answers[i] = finite(expect_peak(config, todo[i], calibrations).peak_rate);
      } catch (const Error&) {
      }
    }
  };
  const unsigned threads = std::max(1U, std::min<unsigned>(std::thread::hardware_concurrency(), 8));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  try {
    store::Transaction tx = cache.transaction();
    for (std::size_t i = 0; i < todo.size(); ++i)
      if (answers[i]) cache.put_expected_peak(config.name(), todo[i].key(), inputs, *answers[i]);
    tx.commit();
  } catch (const Error&) {
    // A read-only store only loses the cache.
  }
}

Anchor expectation_anchor(const Config& config, const Sample& base, const std::vector<std::string>& factors,
                          const std::vector<CalibratedDemand>& calibrations, store::Store* cache) {
  for (const auto& name : factors) {
    if (config.factor(name) == nullptr) throw InputError(fmt::format("the config has no factor '{}'", name));
  }
  if (!config.model()) return {};
  // Memoized: ranking evaluates the same points for every anchored class.
  auto memo = std::make_shared<std::map<std::vector<double>, double>>();
  const std::string inputs = cache != nullptr ? expectation_inputs_key(config, calibrations) : std::string();
  return [&config, base, factors, calibrations, memo, cache, inputs](const Eigen::RowVectorXd& x) {
    std::vector<double> key(x.data(), x.data() + x.size());
    if (auto it = memo->find(key); it != memo->end()) return it->second;
    const Sample s = anchor_sample(config, base, factors, key.data());
    if (cache != nullptr) {
      if (auto hit = cache->cached_expected_peak(config.name(), s.key(), inputs)) {
        const double rate = hit->value_or(std::numeric_limits<double>::infinity());
        memo->emplace(key, rate);
        return rate;
      }
    }
    double rate = 0;
    try {
      rate = expect_peak(config, s, calibrations).peak_rate;
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError(fmt::format("the expectation has no λ* at {}: {}", s.key(), e.what()));
    }
    memo->emplace(key, rate);
    if (cache != nullptr) {
      try {
        cache->put_expected_peak(config.name(), s.key(), inputs,
                                 std::isfinite(rate) ? std::optional<double>(rate) : std::nullopt);
      } catch (const Error&) {
        // A read-only store only loses the cache.
      }
    }
    return rate;
  };
}

std::vector<SurfaceClass> candidate_classes(const std::vector<const Factor*>& factors, bool anchored) {
  std::vector<SurfaceClass> out;
  const std::vector<Coding> autos = codings_of(factors, "auto");
  const std::vector<Coding> linear = codings_of(factors, "linear");
  const bool positive = all_positive(factors);
  const std::vector<std::string> names = names_of(factors);
  // Without numeric factors several polynomials have the same terms: each is ranked once.
  std::set<std::tuple<ResponseScale, std::vector<CodingScale>, bool, std::vector<std::string>>> seen;
  auto add = [&](ResponseScale r, const std::vector<Coding>& c, std::initializer_list<ModelKind> kinds,
                 bool a) {
    std::vector<CodingScale> scales;
    scales.reserve(c.size());
    for (const Coding& x : c) scales.push_back(x.scale());
    for (ModelKind k : kinds) {
      if (seen.emplace(r, scales, a, term_names(model_terms(k, names, c))).second)
        out.push_back({k, r, c, a});
    }
  };
  const auto polynomials = {ModelKind::kFirstOrder, ModelKind::kInteractions, ModelKind::kQuadratic,
                            ModelKind::kCubic};
  // Polynomials [003 §4] on the identity and log scales, in the automatic and linear codings.
  for (ResponseScale r : {ResponseScale::kIdentity, ResponseScale::kLog}) {
    if (r == ResponseScale::kLog && !positive) continue;
    add(r, autos, polynomials, false);
    if (!same_scales(autos, linear)) add(r, linear, polynomials, false);
  }
  const auto low = {ModelKind::kConstant, ModelKind::kFirstOrder, ModelKind::kInteractions,
                    ModelKind::kQuadratic};
  // The operational laws: 1/λ* is the bottleneck's demand, near linear in 1/servers
  // (docs/decisions.md#rsm-scales).
  const std::vector<Coding> inverse = positive ? codings_of(factors, "inverse") : autos;
  if (positive) add(ResponseScale::kReciprocal, inverse, polynomials, false);
  if (anchored) add(ResponseScale::kLog, autos, low, true);                       // a factor on λ*
  if (anchored && positive) add(ResponseScale::kReciprocal, inverse, low, true);  // an added demand
  return out;
}

SurfaceFit fit_measured(const std::vector<const Factor*>& factor_list, const SurfaceSpec& spec,
                        const Eigen::MatrixXd& natural_points, const Eigen::VectorXd& y,
                        const Anchor& anchor) {
  SurfaceFit out;
  const std::vector<std::string> factors = names_of(factor_list);
  if (!spec.select) {
    try {
      std::vector<Coding> codings = codings_of(factor_list, spec.coding);
      SurfaceClass c{spec.model, spec.response, codings, false};
      out.surface.emplace(factors, codings, spec.model, natural_points, y, spec.response);
      out.description = c.describe(factors);
      out.cv_mape = out.surface->loo_mape();
    } catch (const InputError& e) {
      out.surface.reset();
      out.error = fmt::format("no fit from {} measured samples: {}", y.size(), e.what());
    }
    return out;
  }
  std::vector<std::vector<double>> levels;
  levels.reserve(factor_list.size());
  for (const Factor* f : factor_list) levels.push_back(f->axis_levels());
  std::vector<RankedClass> ranked =
      rank_classes(factors, candidate_classes(factor_list, static_cast<bool>(anchor)), natural_points, y,
                   anchor, full_factorial(levels));
  out.classes = static_cast<int>(ranked.size());
  if (ranked.empty()) {
    out.error = fmt::format(
        "no fit from {} measured samples: every class needs at least 2 more samples than "
        "terms (a constant anchored class needs 3 samples, a linear one {})",
        y.size(), factors.size() + 3);
    return out;
  }
  const RankedClass& best = ranked.front();
  out.surface.emplace(factors, best.cls.codings, best.cls.kind, natural_points, y, best.cls.response,
                      best.cls.anchored ? anchor : Anchor{});
  out.description = best.cls.describe(factors);
  out.cv_mape = best.cv_mape;
  if (ranked.size() > 1) {
    out.runner_up = ranked[1];
    out.runner_up_description = ranked[1].cls.describe(factors);
  }
  return out;
}

}  // namespace wb
