// The model options of `workbench map-surface` (--model, --response, --coding) through the plan,
// the surface's params key (resume) and the --json report.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "controller/surface_report.hpp"
#include "core/error.hpp"
#include "experiment/surface_plan.hpp"

namespace {

const std::string kSimConfig = std::string(WB_SOURCE_DIR) + "/configs/sim.toml";

// A run that measured every design point at λ* = law(sample).
wb::SurfaceRun measured_run(const wb::SurfacePlan& plan,
                            const std::function<double(const wb::Sample&)>& law) {
  wb::SurfaceRun run;
  int position = 0;
  for (Eigen::Index row : plan.tour) {
    wb::PointOutcome p;
    p.position = position++;
    p.search_id = position;
    p.status = wb::store::SearchState::kFound;
    p.peak_rate = law(plan.samples[static_cast<std::size_t>(row)]);
    run.points.push_back(p);
  }
  return run;
}

// ... with λ* = 1 / (0.002 + 0.012/disks + 0.015/threads).
wb::SurfaceRun measured_run(const wb::SurfacePlan& plan) {
  return measured_run(plan, [](const wb::Sample& s) {
    return 1.0 / (0.002 + 0.012 / s.numeric("disks") + 0.015 / s.numeric("threads"));
  });
}

}  // namespace

TEST_CASE("model auto leaves the params key as it was, so older default surfaces resume",
          "[rsm][map-surface]") {
  wb::Config config = wb::Config::load(kSimConfig);
  wb::SurfacePlanOptions o{{"disks", "threads"}, "dopt", 8, 1};
  o.select = true;
  wb::SurfacePlan plan = wb::plan_surface(config, config.default_sample(), o);
  CHECK(plan.model == wb::ModelKind::kQuadratic);  // the design's model
  CHECK(plan.response == wb::ResponseScale::kIdentity);
  CHECK(plan.codings[1].scale() == wb::CodingScale::kLog);  // auto: threads span 100x
  nlohmann::json params{{"factors", plan.factors}, {"design", plan.kind}};
  const nlohmann::json before = params;
  wb::surface_model_params(plan, params);
  CHECK(params == before);  // no "model", "response" or "coding" key
  // The same design with a fixed quadratic is another surface.
  o.select = false;
  nlohmann::json fixed;
  wb::surface_model_params(wb::plan_surface(config, config.default_sample(), o), fixed);
  CHECK(fixed == nlohmann::json{{"model", "quadratic"}});
}

TEST_CASE("model auto picks the class that follows a throughput bound and names the runner-up",
          "[rsm][map-surface]") {
  wb::Config config = wb::Config::load(kSimConfig);
  wb::SurfacePlanOptions o{{"disks", "threads"}, "dopt", 10, 1};
  o.select = true;
  wb::SurfaceReport report;
  report.config = &config;
  report.plan = wb::plan_surface(config, config.default_sample(), o);
  report.run = measured_run(report.plan);
  wb::fit_report_surface(report);  // no anchor
  REQUIRE(report.fit.surface);
  // λ* = 1 / (0.002 + 0.012/disks + 0.015/threads): 1/λ* is linear in the inverse codings.
  CHECK(report.fit.surface->response() == wb::ResponseScale::kReciprocal);
  CHECK(report.fit.surface->codings()[0].scale() == wb::CodingScale::kInverse);
  CHECK(report.fit.surface->kind() == wb::ModelKind::kFirstOrder);
  CHECK_FALSE(report.fit.surface->anchored());
  REQUIRE(report.fit.cv_mape);
  CHECK(*report.fit.cv_mape < 1e-6);
  REQUIRE(report.fit.runner_up);
  CHECK(report.fit.runner_up->score >= 0);
  nlohmann::json j = wb::surface_json(report);
  CHECK(j["fit"]["selected"] == true);
  CHECK(j["fit"]["class"].get<std::string>().find("reciprocal") != std::string::npos);
  CHECK(j["fit"]["runner_up"]["class"].is_string());
  CHECK(j["fit"]["classes_ranked"].get<int>() > 10);
}

TEST_CASE("model options round-trip through the params key and the JSON report", "[rsm][map-surface]") {
  wb::Config config = wb::Config::load(kSimConfig);
  wb::SurfacePlanOptions o{{"disks", "threads"}, "dopt", 10, 1};
  o.model = wb::ModelKind::kCubic;
  o.response = wb::ResponseScale::kReciprocal;
  o.coding = "inverse";
  wb::SurfacePlan plan = wb::plan_surface(config, config.default_sample(), o);
  CHECK(plan.terms.size() == 10);
  CHECK(plan.tour.size() == 10);
  CHECK(plan.codings[0].scale() == wb::CodingScale::kInverse);
  CHECK(plan.codings[1].scale() == wb::CodingScale::kInverse);

  nlohmann::json params{{"factors", plan.factors}};
  wb::surface_model_params(plan, params);
  CHECK(params["model"] == "cubic");
  CHECK(params["response"] == "reciprocal");
  CHECK(params["coding"] == "inverse");
  // Read back: the same plan options, hence the same params (the resume key) again.
  wb::SurfacePlanOptions back{{"disks", "threads"}, "dopt", 10, 1};
  back.model = wb::parse_model_kind(params["model"].get<std::string>());
  back.response = wb::parse_response_scale(params["response"].get<std::string>());
  back.coding = params["coding"].get<std::string>();
  wb::SurfacePlan again = wb::plan_surface(config, config.default_sample(), back);
  CHECK(again.tour == plan.tour);
  nlohmann::json params2{{"factors", again.factors}};
  wb::surface_model_params(again, params2);
  CHECK(params2.dump() == params.dump());
  // Any single option differs from the default key.
  wb::SurfacePlanOptions log_only{{"disks", "threads"}, "dopt", 8, 1};
  log_only.response = wb::ResponseScale::kLog;
  nlohmann::json params3;
  wb::surface_model_params(wb::plan_surface(config, config.default_sample(), log_only), params3);
  CHECK(params3 == nlohmann::json{{"model", "quadratic"}, {"response", "log"}});

  wb::SurfaceRun run = measured_run(plan);
  wb::SurfaceReport report;
  report.config = &config;
  report.plan = plan;
  report.run = run;
  report.status = wb::store::SurfaceState::kDone;
  wb::fit_report_surface(report);
  REQUIRE(report.fit.surface);
  CHECK(report.fit.surface->kind() == wb::ModelKind::kCubic);
  CHECK(report.fit.surface->response() == wb::ResponseScale::kReciprocal);
  nlohmann::json j = wb::surface_json(report);
  CHECK(j["design"]["model"] == "cubic");
  CHECK(j["design"]["response"] == "reciprocal");
  CHECK(j["design"]["coding"]["disks"] == "inverse");
  CHECK(j["fit"]["model"] == "cubic");
  CHECK(j["fit"]["response"] == "reciprocal");
  CHECK(j["fit"]["terms"].size() == 10);
  CHECK(j["fit"]["r2"].get<double>() == Approx(1));
  // The throughput bound is exact on this model: every candidate's prediction is right, in λ*.
  for (const auto& s : j["samples"]) {
    const double d = s["sample"]["disks"].is_number() ? s["sample"]["disks"].get<double>()
                                                      : std::stod(s["sample"]["disks"].get<std::string>());
    const double t = s["sample"]["threads"].is_number()
                         ? s["sample"]["threads"].get<double>()
                         : std::stod(s["sample"]["threads"].get<std::string>());
    CHECK(s["predicted"].get<double>() == Approx(1.0 / (0.002 + 0.012 / d + 0.015 / t)));
  }
}

TEST_CASE("a categorical factor: a D-optimal design over its levels and a fit per level",
          "[rsm][map-surface]") {
  const wb::Config config = wb::Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim-fs.toml");
  wb::SurfacePlanOptions o{{"threads", "fs"}, "dopt", 0, 1};
  o.select = true;
  wb::SurfaceReport report;
  report.config = &config;
  report.plan = wb::plan_surface(config, config.default_sample(), o);
  const wb::SurfacePlan& plan = report.plan;
  REQUIRE(plan.candidates.rows() == 7 * 3);
  CHECK(plan.codings[1].categorical());
  // Quadratic in threads, an indicator per filesystem but the first and its slope: 7 terms, 9 points.
  CHECK(plan.terms.size() == 7);
  REQUIRE(plan.tour.size() == 9);
  std::map<std::string, int> per_level;
  for (Eigen::Index row : plan.tour) ++per_level[plan.samples[static_cast<std::size_t>(row)].value("fs")];
  // Every level is measured, at two thread counts at least (its intercept and slope).
  REQUIRE(per_level.size() == 3);
  for (const auto& [level, n] : per_level) CHECK(n >= 2);

  // λ* = 1 / (a_fs + 0.015/threads): each filesystem shifts the throughput bound.
  const std::map<std::string, double> a{{"ext4", 0.006}, {"xfs", 0.0045}, {"btrfs", 0.0085}};
  report.run = measured_run(
      plan, [&](const wb::Sample& s) { return 1.0 / (a.at(s.value("fs")) + 0.015 / s.numeric("threads")); });
  wb::fit_report_surface(report);
  REQUIRE(report.fit.surface);
  INFO(report.fit.description);
  CHECK(report.fit.description.find("per fs") != std::string::npos);
  REQUIRE(report.fit.cv_mape);
  CHECK(*report.fit.cv_mape < 1e-6);
  // Every candidate, measured or not, is predicted: a level's other thread counts included.
  const Eigen::VectorXd predicted = report.fit.surface->predict_values(plan.candidates);
  for (Eigen::Index row = 0; row < plan.candidates.rows(); ++row) {
    const wb::Sample& s = plan.samples[static_cast<std::size_t>(row)];
    CHECK(predicted(row) == Approx(1.0 / (a.at(s.value("fs")) + 0.015 / s.numeric("threads"))).epsilon(1e-6));
  }
  nlohmann::json j = wb::surface_json(report);
  CHECK(j["samples"][0]["sample"]["fs"].is_string());
}

TEST_CASE("bad model options are input errors naming the option", "[rsm][map-surface]") {
  wb::Config config = wb::Config::load(kSimConfig);
  wb::SurfacePlanOptions o{{"disks", "threads"}, "dopt", 8, 1};
  o.coding = "sqrt";
  CHECK_THROWS_WITH(wb::plan_surface(config, config.default_sample(), o), Catch::Contains("--coding"));
  o.coding = "auto";
  o.model = wb::ModelKind::kCubic;  // 10 terms: 8 points cannot fit it
  CHECK_THROWS_WITH(wb::plan_surface(config, config.default_sample(), o), Catch::Contains("cubic"));
}
