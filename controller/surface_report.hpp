#pragma once
// The result of `workbench map-surface`: the fitted surface [003 §4] and the table of measured and
// predicted λ*, as JSON (DESIGN.md "Command contracts") and as human output.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "core/config.hpp"
#include "experiment/surface_plan.hpp"
#include "experiment/surface_runner.hpp"
#include "rsm/surface.hpp"

namespace wb {

struct SurfaceReport {
  std::int64_t surface_id = 0;
  const Config* config = nullptr;
  const SurfacePlan* plan = nullptr;
  const SurfaceRun* run = nullptr;
  std::string status;  // done | budget
  std::string policy;
  bool seeding = false;
  int parallel = 1;
  double elapsed_s = 0;            // real time of this invocation
  std::optional<Surface> surface;  // nullopt when too few samples were measured to fit
  std::string fit_error;           // why there is no surface
};

// Fits the plan's surface (model, response scale, coding) to the found peak rates of `run` (in tour order).
// Fills surface, or fit_error when the measured points cannot determine the model.
void fit_report_surface(SurfaceReport& report);

// `workbench map-surface --json`: {surface_id, factors, status, design:{kind, points, D, d_efficiency,
// g_efficiency, model, response, coding}, samples:[{sample, measured, peak_rate, predicted, search_id}]
// (every candidate), fit:{model, response, terms, coefficients (on the response scale), r2 (in λ*),
// mape_loo} (null without a fit), trials, cost_s, wall_s, this_run:{elapsed_s, trials_run,
// trials_replayed}}.
nlohmann::json surface_json(const SurfaceReport& r);

// Human output: the λ* table (rows: levels of the first factor, columns: of the second; measured
// values marked with *), the coefficients, r², LOO MAPE, cost and wall time.
void print_surface(std::ostream& out, const SurfaceReport& r);

}  // namespace wb
