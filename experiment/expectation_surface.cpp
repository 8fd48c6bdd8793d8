#include "experiment/expectation_surface.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/surface_fit.hpp"
#include "rsm/surface.hpp"

namespace wb {

namespace {

// "a=1,b=x" (Sample::key()) back into a sample.
Sample sample_from_key(const std::string& key) {
  Sample s;
  std::size_t start = 0;
  while (start < key.size()) {
    std::size_t end = key.find(',', start);
    if (end == std::string::npos) end = key.size();
    std::string pair = key.substr(start, end - start);
    std::size_t eq = pair.find('=');
    if (eq != std::string::npos) s.set(pair.substr(0, eq), pair.substr(eq + 1));
    start = end + 1;
  }
  return s;
}

std::optional<Surface> try_fit(const StoredSurfaceFit& m, const Eigen::MatrixXd& points,
                               const Eigen::VectorXd& y) {
  try {
    return fit_measured(m.declared, m.spec, points, y, m.anchor).surface;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// Whether `sample` shares the surface's base levels of every factor outside the surface.
bool same_rest(const StoredSurfaceFit& m, const Sample& sample) {
  return std::all_of(m.base.values().begin(), m.base.values().end(), [&](const auto& kv) {
    return std::find(m.factors.begin(), m.factors.end(), kv.first) != m.factors.end() ||
           (sample.has(kv.first) && sample.value(kv.first) == kv.second);
  });
}

// Places `sample` on the surface's factors; false when it lies outside what was measured: a
// numeric value outside the measured range, a categorical level no measured sample has.
bool locate(const StoredSurfaceFit& m, const Sample& sample, Eigen::RowVectorXd& at) {
  at.resize(static_cast<Eigen::Index>(m.factors.size()));
  for (std::size_t k = 0; k < m.factors.size(); ++k) {
    const Factor& f = *m.declared[k];
    std::optional<double> v = sample.has(f.name) ? f.axis_value(sample.value(f.name)) : std::nullopt;
    if (!v) return false;
    const auto col = m.points.col(static_cast<Eigen::Index>(k));
    const double lo = col.minCoeff(), hi = col.maxCoeff();
    const bool seen = (col.array() == *v).any();
    if (f.numeric ? (*v < lo || *v > hi) : !seen) return false;
    at(static_cast<Eigen::Index>(k)) = *v;
  }
  return true;
}

// Leave-one-out: the share of measured samples a refit without them predicts within tolerance.
std::optional<double> loo_fidelity(const StoredSurfaceFit& m) {
  const Eigen::Index n = m.points.rows();
  int tried = 0, within = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::MatrixXd pts(n - 1, m.points.cols());
    Eigen::VectorXd ys(n - 1);
    for (Eigen::Index r = 0, o = 0; r < n; ++r) {
      if (r == i) continue;
      pts.row(o) = m.points.row(r);
      ys(o++) = m.y(r);
    }
    std::optional<Surface> loo = try_fit(m, pts, ys);
    if (!loo) continue;
    ++tried;
    double pred = loo->predict(m.points.row(i)).value;
    if (std::abs(pred - m.y(i)) <= kExpectationTolerance * m.y(i)) ++within;
  }
  if (tried == 0) return std::nullopt;
  return static_cast<double>(within) / tried;
}

}  // namespace

namespace {

// A stored surface's options and measured samples, not yet fitted (nullopt as refit_stored_surface).
std::optional<StoredSurfaceFit> read_stored_surface(store::Store& store, const Config& config,
                                                    const store::SurfaceRecord& rec) {
  const nlohmann::json params = nlohmann::json::parse(rec.params_json);
  StoredSurfaceFit m;
  m.surface_id = rec.id;
  m.factors = params.at("factors").get<std::vector<std::string>>();
  for (const auto& name : m.factors) {
    const Factor* f = config.factor(name);
    if (f == nullptr) return std::nullopt;
    m.declared.push_back(f);
  }
  try {
    // Older surfaces wrote only the options that differed from the quadratic default.
    m.spec.select = !params.contains("model") && !params.contains("response") && !params.contains("coding");
    if (params.contains("model")) m.spec.model = parse_model_kind(params["model"].get<std::string>());
    if (params.contains("response"))
      m.spec.response = parse_response_scale(params["response"].get<std::string>());
    if (params.contains("coding")) m.spec.coding = params["coding"].get<std::string>();
  } catch (const InputError&) {
    return std::nullopt;
  }
  m.base = sample_from_key(params.at("base").get<std::string>());
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (const auto& p : rec.points) {
    if (!p.search_id) continue;
    auto search = store.search(*p.search_id);
    if (!search || !has_peak(search->status) || !search->peak_rate) continue;
    std::vector<double> row;
    for (const Factor* f : m.declared) {
      std::optional<double> v = p.sample.has(f->name) ? f->axis_value(p.sample.value(f->name)) : std::nullopt;
      if (!v) return std::nullopt;  // the config no longer declares this level
      row.push_back(*v);
    }
    rows.push_back(row);
    y.push_back(*search->peak_rate);
    m.samples.push_back(p.sample);
    m.search_ids.push_back(*p.search_id);
  }
  if (rows.empty()) return std::nullopt;
  const auto n = static_cast<Eigen::Index>(rows.size());
  m.points.resize(n, static_cast<Eigen::Index>(m.factors.size()));
  m.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < m.factors.size(); ++k)
      m.points(i, static_cast<Eigen::Index>(k)) = rows[static_cast<std::size_t>(i)][k];
    m.y(i) = y[static_cast<std::size_t>(i)];
  }
  return m;
}

void fit_stored_surface(store::Store& store, const Config& config, StoredSurfaceFit& m) {
  m.calibrations = load_calibrations(store, config);
  warm_expectation_cache(store, config, m.base, m.factors, m.points, m.calibrations);
  m.anchor = expectation_anchor(config, m.base, m.factors, m.calibrations, &store);
  try {
    m.fit = fit_measured(m.declared, m.spec, m.points, m.y, m.anchor);
  } catch (const InputError& e) {
    m.fit.error = e.what();
  }
}

}  // namespace

std::optional<StoredSurfaceFit> refit_stored_surface(store::Store& store, const Config& config,
                                                     const store::SurfaceRecord& rec) {
  std::optional<StoredSurfaceFit> m = read_stored_surface(store, config, rec);
  if (m) fit_stored_surface(store, config, *m);
  return m;
}

std::optional<SurfaceAnswer> surface_answer(store::Store& store, const Config& config, const Sample& sample) {
  // Every finished surface that covers the sample is refitted; the one with the lowest
  // leave-one-out error answers (the newest on a tie): a later surface of a poorer class does not
  // hide a better one.
  std::optional<SurfaceAnswer> best;
  std::optional<StoredSurfaceFit> best_m;
  double best_cv = std::numeric_limits<double>::infinity();
  for (std::int64_t id : store.done_surfaces(config.name())) {
    std::optional<store::SurfaceRecord> rec = store.surface(id);
    if (!rec) continue;
    // Fitted only once it covers the sample: a fit ranks every class by leave-one-out error.
    std::optional<StoredSurfaceFit> m = read_stored_surface(store, config, *rec);
    Eigen::RowVectorXd at;
    if (!m || !same_rest(*m, sample) || !locate(*m, sample, at)) continue;
    fit_stored_surface(store, config, *m);
    const std::optional<Surface>& surface = m->fit.surface;
    if (!surface) continue;
    const double cv = m->fit.cv_mape.value_or(std::numeric_limits<double>::infinity());
    if (best && !(cv < best_cv)) continue;  // newest first: a tie keeps the newer
    Prediction p = surface->predict(at);
    SurfaceAnswer a;
    a.surface_id = id;
    a.description = m->fit.description;
    a.value = p.value;
    double se = std::isfinite(p.prediction_error) ? p.prediction_error : 0.0;
    a.low = p.value - 2 * se;
    a.high = p.value + 2 * se;
    a.n = static_cast<int>(m->points.rows());
    best = a;
    best_m = std::move(m);
    best_cv = cv;
  }
  if (best) best->fidelity = loo_fidelity(*best_m);
  return best;
}

}  // namespace wb
