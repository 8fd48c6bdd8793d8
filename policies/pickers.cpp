// The registry of load pickers behind `workbench peak --policy`.
#include <fmt/format.h>

#include "core/error.hpp"
#include "policies/load_picker.hpp"

namespace wb {

std::vector<std::string> picker_names() { return {"binsearch", "linear", "strawman", "model", "model-safe"}; }

std::string picker_summary(const std::string& name) {
  if (name == "binsearch") return "double the load until it saturates, then bisect the bracket [003 Alg. 3]";
  if (name == "linear")
    return "raise the load by a fixed linear_step until it saturates, then bisect [003 §3.5]";
  if (name == "strawman")
    return "steps of strawman_step with fixed r = strawman_runlength_s and t = strawman_trials; λ* = last "
           "load before saturation, accurate only if the step is small [003 §3.1]";
  if (name == "model")
    return "fit R = 1/(a - bλ) to the latest load and the one nearest R_sat, jump to its λ at R_sat "
           "[003 Alg. 4]; may not converge";
  if (name == "model-safe")
    return "weighted fit of R = 1/(a - bλ) to all loads, kept inside the bracket and bisecting when the fit "
           "does not shrink it; always converges (seeded: with the neighbours' curve slope as a prior)";
  return "";
}

std::unique_ptr<LoadPicker> make_picker(const std::string& name, const PeakConfig& peak, double start_rate,
                                        bool seeded, double elasticity) {
  if (name == "binsearch") return make_binsearch_picker(peak, start_rate);
  if (name == "linear") return make_linear_picker(peak, start_rate, false);
  if (name == "strawman") return make_linear_picker(peak, start_rate, true);
  if (name == "model") return make_model_guided_picker(peak, start_rate);
  if (name == "model-safe") return make_model_safe_picker(peak, start_rate, seeded, elasticity);
  std::string known;
  for (const auto& n : picker_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError(fmt::format("--policy: unknown policy '{}' (known: {})", name, known));
}

}  // namespace wb
