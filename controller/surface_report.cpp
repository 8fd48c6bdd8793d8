#include "controller/surface_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <map>
#include <ostream>

#include "controller/peak_report.hpp"

namespace wb {

namespace {

// The outcome measured at candidate row `row`, if the design includes it.
const PointOutcome* outcome_at(const SurfaceReport& r, Eigen::Index row) {
  for (std::size_t i = 0; i < r.plan.tour.size(); ++i) {
    if (r.plan.tour[i] == row) return &r.run.points[i];
  }
  return nullptr;
}

nlohmann::json number_or_null(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

nlohmann::json missing_json(const SurfaceReport& r) {
  nlohmann::json missing = nlohmann::json::array();
  for (int i : r.missing) {
    const PointOutcome& p = r.run.points[static_cast<std::size_t>(i)];
    const Sample& sample = r.plan.samples[static_cast<std::size_t>(r.plan.tour[static_cast<std::size_t>(i)])];
    missing.push_back({{"sample", sample_json(*r.config, sample)},
                       {"search_id", p.search_id ? nlohmann::json(*p.search_id) : nlohmann::json(nullptr)},
                       {"search_status", p.status ? to_string(*p.status) : ""}});
  }
  return missing;
}

// The fitted class and its coefficients: on the response scale (of 1/λ* for "reciprocal", of the
// deviation from the expectation when anchored); r2 is in natural units.
nlohmann::json fit_json(const SurfaceReport& r) {
  const Fit& f = r.fit.surface->fit();
  std::vector<double> coefs(f.coefficients.data(), f.coefficients.data() + f.coefficients.size());
  nlohmann::json codings = nlohmann::json::object();
  for (std::size_t i = 0; i < r.plan.factors.size(); ++i)
    codings[r.plan.factors[i]] = to_string(r.fit.surface->codings()[i].scale());
  nlohmann::json j{{"model", to_string(r.fit.surface->kind())},
                   {"response", to_string(r.fit.surface->response())},
                   {"coding", codings},
                   {"anchored", r.fit.surface->anchored()},
                   {"class", r.fit.description},
                   {"selected", r.plan.select},
                   {"cv_mape", number_or_null(r.fit.cv_mape)},
                   {"terms", term_names(f.terms)},
                   {"coefficients", coefs},
                   {"r2", number_or_null(r.fit.surface->r2())},
                   {"mape_loo", number_or_null(r.fit.surface->loo_mape())}};
  if (r.plan.select) {
    j["classes_ranked"] = r.fit.classes;
    j["runner_up"] = r.fit.runner_up ? nlohmann::json{{"class", r.fit.runner_up_description},
                                                      {"cv_mape", r.fit.runner_up->cv_mape}}
                                     : nlohmann::json(nullptr);
  }
  return j;
}

}  // namespace

nlohmann::json surface_json(const SurfaceReport& r) {
  const SurfacePlan& plan = r.plan;
  nlohmann::json j;
  j["surface_id"] = r.surface_id;
  j["testbed"] = r.config->name();
  j["factors"] = plan.factors;
  j["status"] = to_string(r.status);
  j["incomplete"] = r.incomplete();
  j["missing"] = missing_json(r);
  j["added"] = r.added;
  j["policy"] = r.policy;
  j["seeding"] = r.seeding;
  nlohmann::json coding = nlohmann::json::object();
  for (std::size_t i = 0; i < plan.factors.size(); ++i)
    coding[plan.factors[i]] = to_string(plan.codings[i].scale());
  // d_efficiency is AlgDesign's Dea, a lower bound on the D-efficiency against the optimal
  // approximate design (see rsm/design.hpp); D is computed on the coded factors.
  j["design"] = {{"kind", plan.kind},
                 {"points", plan.tour.size()},
                 {"candidates", plan.candidates.rows()},
                 {"D", plan.figures.d},
                 {"d_efficiency", plan.figures.d_efficiency_bound},
                 {"g_efficiency", plan.figures.g_efficiency},
                 {"measured_D", r.measured_figures.d},
                 {"model", to_string(plan.model)},
                 {"response", to_string(plan.response)},
                 {"coding", coding}};
  std::optional<Eigen::VectorXd> predicted;
  if (r.fit.surface) predicted = r.fit.surface->predict_values(plan.candidates);
  nlohmann::json samples = nlohmann::json::array();
  int trials = 0;
  for (Eigen::Index row = 0; row < plan.candidates.rows(); ++row) {
    const PointOutcome* p = outcome_at(r, row);
    nlohmann::json s;
    s["sample"] = sample_json(*r.config, plan.samples[static_cast<std::size_t>(row)]);
    s["measured"] = p != nullptr && p->peak_rate.has_value();
    s["peak_rate"] = p != nullptr ? number_or_null(p->peak_rate) : nlohmann::json(nullptr);
    s["predicted"] = predicted ? number_or_null((*predicted)(row)) : nlohmann::json(nullptr);
    s["search_id"] = p != nullptr && p->search_id ? nlohmann::json(*p->search_id) : nlohmann::json(nullptr);
    if (p != nullptr && p->search_id) s["search_status"] = p->status ? to_string(*p->status) : "";
    samples.push_back(s);
  }
  for (const PointOutcome& p : r.run.points) trials += p.trials;
  j["samples"] = samples;
  if (r.fit.surface) {
    j["fit"] = fit_json(r);
  } else {
    j["fit"] = nullptr;
    j["fit_error"] = r.fit.error;
  }
  j["trials"] = trials;
  j["cost_s"] = r.run.cost_s;
  j["wall_s"] = r.run.wall_s;
  j["parallel"] = r.parallel;
  j["this_run"] = {{"elapsed_s", r.elapsed_s},
                   {"trials_run", r.run.live_trials},
                   {"trials_replayed", r.run.replayed_trials},
                   {"searches_reused", r.run.reused_searches}};
  return j;
}

namespace {

// The λ* table: measured cells starred, the others predicted (two factors as a grid).
void print_table(std::ostream& out, const SurfaceReport& r) {
  const SurfacePlan& plan = r.plan;
  const Config& config = *r.config;
  std::optional<Eigen::VectorXd> predicted;
  if (r.fit.surface) predicted = r.fit.surface->predict_values(plan.candidates);
  auto cell = [&](Eigen::Index row) {
    const PointOutcome* p = outcome_at(r, row);
    if (p != nullptr && p->peak_rate) return fmt::format("{:.0f}*", *p->peak_rate);
    if (p != nullptr && p->search_id) return std::string(p->status ? to_string(*p->status) : "running");
    if (predicted) return fmt::format("{:.0f} ", (*predicted)(row));
    return std::string("- ");
  };
  const Factor* f0 = config.factor(plan.factors[0]);
  out << "\nλ* (requests/s; * = measured, others predicted by the surface)\n";
  if (plan.factors.size() == 2) {
    const Factor* f1 = config.factor(plan.factors[1]);
    std::string corner = fmt::format("{}\\{}", f0->name, f1->name);
    fmt::print(out, "{:>14}", corner);
    for (const std::string& l : f1->levels) fmt::print(out, " {:>9}", l);
    out << "\n";
    // full_factorial: the first factor varies fastest.
    const auto n0 = static_cast<Eigen::Index>(f0->levels.size());
    for (Eigen::Index i = 0; i < n0; ++i) {
      fmt::print(out, "{:>14}", f0->levels[static_cast<std::size_t>(i)]);
      for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(f1->levels.size()); ++j) {
        fmt::print(out, " {:>9}", cell(j * n0 + i));
      }
      out << "\n";
    }
  } else {
    for (Eigen::Index row = 0; row < plan.candidates.rows(); ++row) {
      fmt::print(out, "  {:<40} {:>9}\n", plan.samples[static_cast<std::size_t>(row)].key(), cell(row));
    }
  }
  out << "\n";
}

// The class, what it was fitted to, the runner-up and the coefficients.
void print_fit(std::ostream& out, const SurfaceReport& r) {
  const Fit& f = r.fit.surface->fit();
  const bool anchored = r.fit.surface->anchored();
  const char* on =
      r.fit.surface->response() == ResponseScale::kLog ? (anchored ? "ln(λ* / expected λ*)" : "ln λ*")
      : r.fit.surface->response() == ResponseScale::kReciprocal ? (anchored ? "1/λ* − 1/expected λ*" : "1/λ*")
                                                                : (anchored ? "λ* − expected λ*" : "λ*");
  fmt::print(
      out, "model: {}{}\n", r.fit.description,
      r.plan.select ? fmt::format(" (chosen by leave-one-out error of {} classes)", r.fit.classes) : "");
  fmt::print(out, "fitted to {} as a {} in the coded factors\n", on, to_string(r.fit.surface->kind()));
  if (r.plan.select && r.fit.runner_up)
    fmt::print(out, "runner-up: {}, LOO MAPE {:.2f}%\n", r.fit.runner_up_description,
               r.fit.runner_up->cv_mape);
  out << "coefficients (coded factors:";
  for (std::size_t i = 0; i < r.plan.factors.size(); ++i) {
    fmt::print(out, " {} {}", r.plan.factors[i], to_string(r.fit.surface->codings()[i].scale()));
  }
  out << ")\n";
  for (std::size_t t = 0; t < f.terms.size(); ++t) {
    fmt::print(out, "  {:<20} {:>12.6g}\n", f.terms[t].name, f.coefficients(static_cast<Eigen::Index>(t)));
  }
  auto loo = r.fit.surface->loo_mape();
  fmt::print(out, "r² = {:.4f}, LOO MAPE = {}\n", r.fit.surface->r2(),
             loo ? fmt::format("{:.2f}%", *loo) : std::string("n/a (saturated design)"));
}

}  // namespace

void print_surface(std::ostream& out, const SurfaceReport& r) {
  const SurfacePlan& plan = r.plan;
  fmt::print(out, "surface {} on {}: {} design, {} of {} samples, policy {}{}\n", r.surface_id,
             r.config->name(), plan.kind, plan.tour.size(), plan.candidates.rows(), r.policy,
             r.seeding ? " with seeding" : "");
  print_table(out, r);
  if (r.fit.surface)
    print_fit(out, r);
  else
    fmt::print(out, "{}\n", r.fit.error);
  fmt::print(out, "design: D = {:.4g}, D-efficiency >= {:.1f}%, G-efficiency {:.1f}%\n", plan.figures.d,
             plan.figures.d_efficiency_bound * 100, plan.figures.g_efficiency * 100);
  fmt::print(out, "cost: {:.0f} s ({:.2f} h) machine time; wall time {:.0f} s ({:.2f} h) on {} slot{}\n",
             r.run.cost_s, r.run.cost_s / 3600, r.run.wall_s, r.run.wall_s / 3600, r.parallel,
             r.parallel == 1 ? "" : "s");
  if (r.added > 0)
    fmt::print(out, "augmented: {} sample(s) added after the design to lower the cross-validated error\n",
               r.added);
  if (r.incomplete()) {
    fmt::print(out, "incomplete: {} of {} samples have no λ*; the fit and D = {:.4g} are over the others:\n",
               r.missing.size(), plan.tour.size(), r.measured_figures.d);
    for (int i : r.missing) {
      const PointOutcome& p = r.run.points[static_cast<std::size_t>(i)];
      fmt::print(out, "  {} (search {}: {})\n",
                 plan.samples[static_cast<std::size_t>(plan.tour[static_cast<std::size_t>(i)])].key(),
                 p.search_id ? std::to_string(*p.search_id) : "-", p.status ? to_string(*p.status) : "");
    }
  }
  if (r.status == store::SurfaceState::kBudget)
    out << "stopped by --budget: some samples were not measured\n";
}

}  // namespace wb
