#pragma once
// Choosing and ordering the samples of a response surface [003 Alg. 1 Step 2, §4, §5.3.2]: the full
// factorial of the chosen factors' levels (a categorical factor's by index) (others at the base sample's) or
// a D-optimal subset for the model and coding, in a nearest-neighbour tour so seeding [003 §3.7] helps. Pure;
// thread-safe.
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "rsm/coding.hpp"
#include "rsm/design.hpp"
#include "rsm/model_terms.hpp"
#include "rsm/response.hpp"

namespace wb {

struct SurfacePlanOptions {
  std::vector<std::string> factors;         // factors of the config, at least one, no repeats
  std::string design = "dopt";              // "full" | "dopt"
  int points = 0;                           // dopt: N; 0 = the number of model terms + 2
  std::uint64_t seed = 1;                   // of the exchange algorithm's random starts
  ModelKind model = ModelKind::kQuadratic;  // with select: the design's model only
  ResponseScale response = ResponseScale::kIdentity;
  std::string coding = "auto";  // "auto" (coding_for_levels) | "linear" | "log" | "inverse", every factor
  bool select = false;          // --model auto: the fit's class is chosen from the data (surface_fit.hpp)
};

struct SurfacePlan {
  std::vector<std::string> factors;
  std::vector<Coding> codings;  // per factor; see coding_for_levels()
  std::vector<Term> terms;      // the model's terms over the coded factors
  ModelKind model = ModelKind::kQuadratic;
  ResponseScale response = ResponseScale::kIdentity;
  std::string coding = "auto";     // as given in the options
  bool select = false;             // as given in the options
  Eigen::MatrixXd candidates;      // natural units, one row per candidate sample
  Eigen::MatrixXd coded;           // the same, coded
  std::vector<Sample> samples;     // candidate samples (base sample + the row's levels)
  std::vector<Eigen::Index> tour;  // the design's candidate rows in the order they are measured
  Design figures;                  // D and efficiency of the design
  std::string kind;                // "full" | "dopt"
};

// The coding of a factor's levels: log when every level is positive and they span at least a
// factor of 10 (thread counts 1..100: a quadratic in log(threads) can rise and level off, one in
// threads cannot), else linear.
Coding coding_for_levels(const std::vector<double>& levels);

// The coding of a factor in a surface: a categorical factor's levels (Coding::categorical), else
// coding_for_levels for "auto" or the scale named (InputError naming --coding where the levels do
// not allow it).
Coding factor_coding(const Factor& f, const std::string& coding);

// Builds the plan. InputError naming the option for an unknown or repeated factor,
// an unknown design kind or coding, a coding the levels do not allow (log or inverse with a level
// <= 0), or N outside [terms, candidates].
SurfacePlan plan_surface(const Config& config, const Sample& base, const SurfacePlanOptions& options);

// Adds the plan's model options to a surface's params key (which identifies it for resume): none
// for --model auto (the default, whose design is the quadratic's: an older unfinished default
// surface resumes), else "model", and "response" and "coding" where they are not the defaults.
void surface_model_params(const SurfacePlan& plan, nlohmann::json& params);

// Greedy nearest-neighbour tour of `rows` of `coded` (Euclidean distance of coded factors): starts
// at the row nearest the all-low corner, then always moves to the nearest unvisited row (ties to
// the lower row index). Returns the rows in tour order.
std::vector<Eigen::Index> nearest_neighbour_tour(const Eigen::MatrixXd& coded,
                                                 std::vector<Eigen::Index> rows);

}  // namespace wb
