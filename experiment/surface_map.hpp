#pragma once
// `workbench map-surface`: [003 Alg. 1] with a D-optimal response surface [003 §4, §5.3.2]: chooses
// and tours the samples, searches each (on K slots at once), stores all as it happens and fits the
// surface. The same request again continues an unfinished surface. controller/surface_report.hpp
// renders the result.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "core/config.hpp"
#include "experiment/surface_fit.hpp"
#include "experiment/surface_plan.hpp"
#include "experiment/surface_runner.hpp"
#include "rsm/surface.hpp"

namespace wb {

struct MapSurfaceRequest {
  std::string factors;  // comma-separated names, as --factors
  std::string set;      // levels of the other factors
  std::string design = "dopt";
  int points = 0;      // 0: the design's default
  std::string policy;  // empty: [peak] policy
  std::string target;  // empty: [peak] target
  bool seeding = false;
  int parallel = 1;
  double budget_h = 0;                       // 0: no budget
  std::optional<std::uint64_t> seed;         // the simulated testbed's noise (default: [sim] seed)
  std::optional<std::uint64_t> design_seed;  // the D-optimal exchange's starts (default: seed)
  double target_error =
      0;  // percent: add D-optimal samples until the cross-validated error is at most this; 0: none
  std::string model = "auto";
  std::string response = "identity";
  std::string coding = "auto";
  bool verbose = false;
};

struct SurfaceReport {
  std::int64_t surface_id = 0;
  const Config* config = nullptr;
  SurfacePlan plan;
  SurfaceRun run;
  store::SurfaceState status = store::SurfaceState::kDone;
  std::string policy;
  bool seeding = false;
  int parallel = 1;
  double elapsed_s = 0;  // real time of this invocation
  // The surface (nullopt, with the reason in fit.error, when the measured points cannot determine
  // it), its class, cross-validated error and (auto) the runner-up.
  SurfaceFit fit;
  // Tour positions whose search ended without a λ* (not-found, failed, its own budget): the fit
  // and `measured_figures` are over the others, and the surface is incomplete.
  std::vector<int> missing;
  Design measured_figures;  // D and efficiencies of the points with a λ*
  int added = 0;            // samples this run added after the design (--target-error)

  bool incomplete() const { return !missing.empty(); }
};

// Fills missing and measured_figures from the run.
void note_missing_points(SurfaceReport& report);

// Fits the plan's surface (its class, or --model auto's choice, anchored to `anchor` when given) to
// the found peak rates of `run` (in tour order). Fills fit: its surface, or its error when the
// measured points cannot determine the model.
void fit_report_surface(SurfaceReport& report, const Anchor& anchor = {});

// Validates the request (InputError before the store at `store_path` is opened), finds or creates
// the surface, runs its searches and fits it. Progress goes to `log`.
SurfaceReport map_surface(const Config& config, const std::string& store_path,
                          const MapSurfaceRequest& request, std::ostream& log);

}  // namespace wb
