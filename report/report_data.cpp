#include "report/report_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiment/expectation_surface.hpp"
#include "rsm/coding.hpp"

namespace wb {

namespace {

std::vector<LoadView> load_views(store::Store& store, const PeakRegion& region, std::int64_t search_id,
                                 const std::vector<store::StoredTrial>& trials) {
  std::vector<LoadView> out;
  for (const store::StoredLoad& l : store.loads(search_id)) {
    LoadView v;
    v.load = l;
    int n = 0, any = 0;
    for (const auto& t : trials) {
      if (t.load_index != l.load_index) continue;
      ++any;
      v.achieved_rate += t.trial.achieved_rate;
      // A trial where nothing completed has no response time (its zeros would read as instant
      // answers): it counts for the achieved rate only.
      if (t.trial.completed == 0) continue;
      ++n;
      v.mean_ms += t.trial.mean_ms;
      v.metric_ms += region.value(t.trial);
      v.p50_ms += t.trial.p50_ms;
      v.p90_ms += t.trial.p90_ms;
      v.p99_ms += t.trial.p99_ms;
    }
    // NaN (null in JSON, "–" in tables) without a response time; a load whose trials were not
    // stored (its controller died) keeps its place, so loads are numbered as the store numbers them.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (double* x : {&v.mean_ms, &v.metric_ms, &v.p50_ms, &v.p90_ms, &v.p99_ms}) *x = n > 0 ? *x / n : nan;
    v.achieved_rate = any > 0 ? v.achieved_rate / any : nan;
    out.push_back(v);
  }
  return out;
}

// Over the measured range only: the surface is not an answer outside it (no extrapolation).
std::optional<SurfaceGrid> surface_grid(store::Store& store, const Config& config, const StoredSurfaceFit& m,
                                        const Surface& surface) {
  SurfaceGrid g;
  auto axis = [&](Eigen::Index k, bool& log) {
    const double lo = m.points.col(k).minCoeff(), hi = m.points.col(k).maxCoeff();
    log = surface.codings()[static_cast<std::size_t>(k)].scale() == CodingScale::kLog && lo > 0;
    std::vector<double> a;
    if (surface.anchored()) {
      for (const std::string& level : m.declared[static_cast<std::size_t>(k)]->levels) {
        std::optional<double> x = m.declared[static_cast<std::size_t>(k)]->axis_value(level);
        if (x && *x >= lo && *x <= hi) a.push_back(*x);
      }
      std::sort(a.begin(), a.end());
      a.erase(std::unique(a.begin(), a.end()), a.end());
    } else {
      for (int s = 0; s < kSurfaceGridSteps; ++s) {
        const double t = static_cast<double>(s) / (kSurfaceGridSteps - 1);
        a.push_back(log ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t);
      }
    }
    return a;
  };
  g.x = axis(0, g.log_x);
  g.y = axis(1, g.log_y);
  if (g.x.size() < 2 || g.y.size() < 2) return std::nullopt;
  const auto nx = static_cast<Eigen::Index>(g.x.size()), ny = static_cast<Eigen::Index>(g.y.size());
  Eigen::MatrixXd at(nx * ny, 2);
  for (Eigen::Index i = 0; i < nx; ++i)
    for (Eigen::Index j = 0; j < ny; ++j)
      at.row(i * ny + j) << g.x[static_cast<std::size_t>(i)], g.y[static_cast<std::size_t>(j)];
  if (surface.anchored()) warm_expectation_cache(store, config, m.base, m.factors, at, m.calibrations);
  Eigen::VectorXd z;
  try {
    z = surface.predict_values(at);
  } catch (const InputError&) {
    return std::nullopt;  // the anchor has no answer somewhere on the grid: no heatmap
  }
  g.z.resize(nx, ny);
  for (Eigen::Index i = 0; i < nx; ++i)
    for (Eigen::Index j = 0; j < ny; ++j) g.z(i, j) = z(i * ny + j);
  return g;
}

SurfaceView surface_view(store::Store& store, const Config& config, const store::SurfaceRecord& rec,
                         bool fit) {
  SurfaceView v;
  v.id = rec.id;
  v.status = std::string(to_string(rec.status));
  v.factors = nlohmann::json::parse(rec.params_json).at("factors").get<std::vector<std::string>>();
  for (const auto& p : rec.points) v.design.push_back(p.sample);
  if (!fit) return v;
  std::optional<StoredSurfaceFit> m = refit_stored_surface(store, config, rec);
  if (!m) {
    v.fit_error =
        "cannot refit: no sample has a λ* yet, or the config no longer declares the surface's factors or "
        "levels";
    return v;
  }
  const std::optional<Surface>& surface = m->fit.surface;
  if (surface) {
    v.model = m->fit.description;
    v.cv_mape = m->fit.cv_mape;
    v.r2 = surface->r2();
  } else {
    v.fit_error = m->fit.error;
  }
  for (Eigen::Index i = 0; i < m->points.rows(); ++i) {
    SurfaceView::Point p;
    p.sample = m->samples[static_cast<std::size_t>(i)];
    p.search_id = m->search_ids[static_cast<std::size_t>(i)];
    for (Eigen::Index k = 0; k < m->points.cols(); ++k) p.at.push_back(m->points(i, k));
    p.measured = m->y(i);
    p.fitted = surface ? surface->predict(m->points.row(i)).value : std::numeric_limits<double>::quiet_NaN();
    v.measured.push_back(p);
  }
  const bool two_numeric = m->declared.size() == 2 && m->declared[0]->numeric && m->declared[1]->numeric;
  if (surface && two_numeric) v.grid = surface_grid(store, config, *m, *surface);
  return v;
}

}  // namespace

ReportData read_report(const Config& config, const std::string& store_path, const ReportScope& scope,
                       std::ostream& log) {
  // Reading must not create a store where none is (a typo in --store would look like an empty one).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(store_path, ec))
    throw InputError(fmt::format("no store at {} (peak or map-surface creates one)", store_path));
  ReportData r;
  r.testbed = config.name();
  r.region = config.peak().region;
  r.expectations = testbed_report(config, store_path, log);
  r.store_path = r.expectations.store_path;
  store::Store store(store_path);

  std::vector<std::int64_t> search_ids;
  std::vector<std::int64_t> surface_ids;
  if (scope.surface) {
    auto rec = store.surface(*scope.surface);
    if (!rec || rec->testbed != config.name())
      throw InputError(fmt::format("--surface {}: no surface of testbed {} has this id in {}", *scope.surface,
                                   config.name(), r.store_path));
    surface_ids.push_back(rec->id);
    for (const auto& p : rec->points)
      if (p.search_id) search_ids.push_back(*p.search_id);
  } else if (scope.search) {
    auto s = store.search(*scope.search);
    if (!s || s->testbed != config.name())
      throw InputError(fmt::format("--search {}: no search of testbed {} has this id in {}", *scope.search,
                                   config.name(), r.store_path));
    search_ids.push_back(s->id);
  } else {
    search_ids = store.search_ids(config.name());
    surface_ids = store.surface_ids(config.name());
  }

  std::map<std::int64_t, const MeasuredVsExpected*> with_expectation;
  for (const auto& m : r.expectations.searches) with_expectation[m.search.id] = &m;
  for (std::int64_t id : search_ids) {
    SearchView v;
    if (auto it = with_expectation.find(id); it != with_expectation.end()) {
      v.row = *it->second;
    } else {
      auto s = store.search(id);
      if (!s) continue;
      v.row.search = *s;
    }
    v.interval = store.peak_interval(id);
    v.trials = store.trials(id);
    v.loads = load_views(store, r.region, id, v.trials);
    r.searches.push_back(std::move(v));
  }
  for (std::int64_t id : surface_ids) {
    auto rec = store.surface(id);
    if (rec) r.surfaces.push_back(surface_view(store, config, *rec, scope.fit_surfaces));
  }
  if (auto tree = store.zcart_tree(config.name())) r.tree = ZCart::from_json(nlohmann::json::parse(*tree));
  r.probes = store.probes(config.name(), true);

  std::vector<const store::StoredTrial*> trials;
  for (const auto& s : r.searches)
    for (const auto& t : s.trials) trials.push_back(&t);
  std::stable_sort(trials.begin(), trials.end(),
                   [](const auto* a, const auto* b) { return a->created_at < b->created_at; });
  double total = 0;
  for (const auto* t : trials) {
    total += t->trial.cost_s;
    r.cost.push_back({t->created_at, t->created_unix - trials.front()->created_unix, total, t->search_id});
  }
  return r;
}

}  // namespace wb
