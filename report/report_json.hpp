#pragma once
// `workbench report --json` (DESIGN.md "Command contracts"): the searches with their expectations,
// the fidelity and the mismatches, and everything the HTML report draws — each search's loads and
// λ* interval, the surfaces with their fit and grid, the Z-CART tree, the probes and the cost over
// time — so other tools can draw it. A surface's grid.peak_rate[i][j] is λ* at grid.x[i] (its first
// factor) and grid.y[j] (its second).
#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "report/report_data.hpp"

namespace wb {

nlohmann::json report_json(const Config& config, const ReportData& data);

}  // namespace wb
