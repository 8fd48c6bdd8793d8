#pragma once
// The result of `workbench map-surface`: the fitted surface [003 §4] and the table of measured and
// predicted λ*, as JSON (DESIGN.md "Command contracts") and as human output.
#include <nlohmann/json.hpp>

#include <iosfwd>

#include "core/config.hpp"
#include "experiment/surface_map.hpp"
#include "rsm/surface.hpp"

namespace wb {

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
